"""``acl.fv``: pyACL's feature-vector retrieval API -- not provided by aiocann (see _unsupported).

Every public name is a stand-in whose call raises NotImplementedError.
"""

from ._unsupported import module_getattr

__getattr__, __dir__ = module_getattr(
    "acl.fv", None, "feature-vector retrieval is a CANN service the simulator does not have"
)
