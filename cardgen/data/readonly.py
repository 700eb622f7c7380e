"""A dict nobody may change, for data one process shares between its users (a Translation's
tables, the positions of a parsed YAML file): every change raises TypeError, reads stay a
dict's (fast, and `==` compares with a dict), and it still pickles and copies (a snapshot goes to
worker processes and is deep-copied; a copy of something unchangeable is itself)."""

from __future__ import annotations


class ReadOnlyDict(dict):
    def _refuse(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return ReadOnlyDict, (dict(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self
