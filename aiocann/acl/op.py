"""``acl.op``: pyACL's single-operator API -- not provided by aiocann (see _unsupported).

Running operators by type (aclopExecute) needs the operator library and its compiler; aiocann
launches kernels you build (acl.rt.binary_* and launches) instead.
"""

from ._unsupported import module_getattr

NAMES = """
    set_model_dir load execute execute_with_handle cast create_handle_for_cast create_attr destroy_attr
    set_attr_bool set_attr_int set_attr_float set_attr_string set_attr_list_bool set_attr_list_int
    set_attr_list_float set_attr_list_string set_attr_list_list_int create_handle destroy_handle
    start_dump_args stop_dump_args register_compile_func unregister_compile_func create_kernel
    set_kernel_args set_kernel_workspace_sizes update_params execute_v2 infer_shape
    set_attr_data_type set_attr_list_data_type set_max_op_queue_num
""".split()

__getattr__, __dir__ = module_getattr(
    "acl.op", NAMES, "single operators need CANN's operator library and compiler, which the simulator does not have"
)
