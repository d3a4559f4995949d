"""``acl.mdl``: pyACL's offline-model API -- not provided by aiocann (see _unsupported).

Loading and executing .om models needs the graph engine, which the simulator does not have;
aiocann runs kernels (acl.rt.binary_* and launches) instead. (The ACL Graph calls of stream
capture, aclmdlRI*, are not in pyACL's acl.mdl table.)
"""

from ._unsupported import module_getattr

NAMES = """
    load_from_file unload query_size execute execute_async create_dataset destroy_dataset
    get_dataset_buffer get_dataset_num_buffers add_dataset_buffer get_output_size_by_index
    get_num_inputs get_num_outputs get_input_size_by_index create_desc get_desc destroy_desc
    load_from_mem load_from_file_with_mem load_from_mem_with_mem query_size_from_mem
    set_dynamic_batch_size set_dynamic_hw_size get_cur_output_dims get_first_aipp_info create_aipp
    destroy_aipp get_input_dims get_input_dims_v2 get_output_dims get_input_name_by_index
    get_output_name_by_index get_input_format get_output_format get_input_data_type
    get_output_data_type get_input_index_by_name get_output_index_by_name get_dynamic_batch
    get_dynamic_hw set_aipp_input_format set_aipp_csc_params set_aipp_rbuv_swap_switch
    set_aipp_ax_swap_switch set_aipp_src_image_size set_aipp_crop_params set_aipp_padding_params
    set_aipp_dtc_pixel_mean set_aipp_dtc_pixel_min set_aipp_pixel_var_reci set_input_aipp
    set_input_dynamic_dims get_input_dynamic_gear_count get_input_dynamic_dims create_and_get_op_desc
    init_dump finalize_dump get_aipp_type set_aipp_by_input_index set_dump dump_reg_callback
    dump_unreg_callback load_with_config create_config_handle destroy_config_handle set_config_opt
    get_tensor_real_name set_dataset_tensor_desc get_dataset_tensor_desc get_op_attr
    get_aipp_data_size create_exec_config_handle destroy_exec_config_handle set_exec_config_opt
    execute_v2 get_desc_from_file get_desc_from_mem get_input_dims_range bundle_load_from_file
    bundle_load_from_mem bundle_unload bundle_get_model_id bundle_get_model_num set_aipp_scf_params
    load_from_file_with_q load_from_mem_with_q
""".split()

__getattr__, __dir__ = module_getattr(
    "acl.mdl", NAMES, "offline models (.om) need the graph engine, which the simulator does not have"
)
