"""Deprecated names of the Python API: old function and method names, keyword arguments and attributes that still
work for one release and warn (DeprecationWarning) with the new name.  The list of them is docs/python-api.md.

* ``old = deprecatedAlias(new, "old")`` -- a function or method under its old name;
* ``@renamedKeywords(old_name="newName")`` -- old keyword arguments of a function, method or constructor;
* ``old = deprecatedAttribute("new", "old")`` -- a property (or dataclass field) under its old name.
"""
import functools
import warnings

_REMOVAL = "it will be removed in the next release"


def _callableName(function):
    """How a call of function reads in a message: "f", "Class.method" or "Class" for a constructor."""
    name = function.__qualname__
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def _translateKeywords(name, renames, kwargs, stacklevel):
    """kwargs with the old keyword names of renames (old -> new) replaced by the new ones, warning for each."""
    for old, new in renames.items():
        if old in kwargs:
            if new in kwargs:
                raise TypeError(f"{name}() got both the keyword argument {new!r} and its deprecated name {old!r}")
            warnings.warn(f"{name}(): the keyword argument {old!r} is deprecated, use {new!r}; {_REMOVAL}",
                          DeprecationWarning, stacklevel=stacklevel + 1)
            kwargs[new] = kwargs.pop(old)
    return kwargs


def renamedKeywords(**renames):
    """A decorator: the function also accepts the old keyword names (old=new pairs), with a DeprecationWarning."""

    def decorate(function):
        name = _callableName(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            return function(*args, **_translateKeywords(name, renames, kwargs, 2))

        wrapper._renamedKeywords = dict(getattr(function, "_renamedKeywords", {}), **renames)
        return wrapper

    return decorate


def deprecatedAlias(function, oldName):
    """function under its old name: warns, then calls it (old keyword names of @renamedKeywords work too).

    For a method, write ``old = deprecatedAlias(new, "old")`` in the class body after the new method."""
    newName = _callableName(function)
    prefix = newName.rpartition(".")[0]
    fullOldName = f"{prefix}.{oldName}" if prefix else oldName
    renames = getattr(function, "_renamedKeywords", {})
    target = function.__wrapped__ if renames else function

    @functools.wraps(target)
    def alias(*args, **kwargs):
        warnings.warn(f"{fullOldName} is deprecated, use {newName}; {_REMOVAL}", DeprecationWarning, stacklevel=2)
        return target(*args, **_translateKeywords(newName, renames, kwargs, 2))

    alias.__name__ = oldName
    alias.__qualname__ = fullOldName
    alias.__doc__ = f"Deprecated alias of :func:`{newName}`; {_REMOVAL}."
    del alias.__wrapped__  # inspect.signature shows *args, **kwargs rather than the new keyword names
    return alias


def deprecatedAttribute(newName, oldName):
    """A property oldName that reads (and writes) the attribute newName, with a DeprecationWarning."""

    def message(owner):
        name = type(owner).__name__
        return f"{name}.{oldName} is deprecated, use {name}.{newName}; {_REMOVAL}"

    def getter(self):
        warnings.warn(message(self), DeprecationWarning, stacklevel=2)
        return getattr(self, newName)

    def setter(self, value):
        warnings.warn(message(self), DeprecationWarning, stacklevel=2)
        setattr(self, newName, value)

    return property(getter, setter, doc=f"Deprecated alias of ``{newName}``; {_REMOVAL}.")
