"""``acl.media``: pyACL's DVPP media API (image/video codecs, VPC) -- not provided by aiocann (see _unsupported).

Every public name is a stand-in whose call raises NotImplementedError.
"""

from ._unsupported import module_getattr

__getattr__, __dir__ = module_getattr(
    "acl.media", None, "DVPP media processing (image and video codecs, VPC) is hardware the simulator does not model"
)
