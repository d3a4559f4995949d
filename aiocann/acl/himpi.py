"""``acl.himpi``: pyACL's hi_mpi media API -- not provided by aiocann (see _unsupported).

Every public name is a stand-in whose call raises NotImplementedError.
"""

from ._unsupported import module_getattr

__getattr__, __dir__ = module_getattr(
    "acl.himpi", None, "DVPP media processing (the hi_mpi interface) is hardware the simulator does not model"
)
