"""``import acl`` for programs that aiocann serves: the pyACL name, resolved to aiocann.acl.

This folder (``aiocann/acl/_shim``) is what ``python -m aiocann.acl`` puts on ``PYTHONPATH``
for the processes its program starts (``subprocess`` of ``sys.executable``, ``multiprocessing``
spawn children, a Ray cluster's workers), and what the toolkit's ``set_env.sh`` puts there, as
CANN's own script puts pyACL's folder there. It is never put ahead of a real pyACL: the runner
adds it only where ``import acl`` finds nothing else.

Importing it registers aiocann's facade modules under pyACL's names and replaces this module in
``sys.modules`` with :mod:`aiocann.acl` itself, so ``import acl`` gives the facade, and
``import acl.rt`` its ``rt`` -- one facade per process, with one table of callbacks.
"""

from aiocann.acl._alias import alias_acl

alias_acl()
