"""GROMACS .mdp files: `key = value` lines, ';' comments, keys that GROMACS reads alike (case, '-' and '_', the old
names it still accepts) read alike, and GROMACS's defaults (version 2022) for the keys that the loader reads."""
import collections.abc
import os

# Old names that grompp still accepts, as it renames them.
_RENAMED_KEYS = {"vdwtype": "vdw-type"}

#: GROMACS 2022's defaults of the keys the loader reads, under their normalised names.
DEFAULTS = {
    "cutoff-scheme": "Verlet", "pbc": "xyz", "periodic-molecules": "no",
    "coulombtype": "Cut-off", "coulomb-modifier": "Potential-shift-Verlet", "rcoulomb": "1", "epsilon-r": "1",
    "epsilon-rf": "0", "vdw-type": "Cut-off", "vdw-modifier": "Potential-shift-Verlet", "rvdw": "1",
    "dispcorr": "no", "constraints": "none", "free-energy": "no", "define": "", "include": "", "nwall": "0",
    "pull": "no",
    "awh": "no", "rotation": "no", "electric-field-x": "", "electric-field-y": "", "electric-field-z": "",
}


def normalizeKey(key):
    """The one spelling of an mdp key: lower case, '_' written '-', old names renamed."""
    key = key.strip().lower().replace("_", "-")
    return _RENAMED_KEYS.get(key, key)


def normalizeValue(value):
    """The one spelling of an mdp choice, as GROMACS compares them: lower case, '-' and '_' ignored
    ("Reaction-Field", "reaction_field" and "reactionfield" are one)."""
    return value.strip().lower().replace("-", "").replace("_", "")


class MdpSettings(collections.abc.Mapping):
    """The settings of a GROMACS .mdp file: ``mdp["epsilon_r"]``, ``mdp["Epsilon-R"]`` and ``mdp["epsilon-r"]`` are
    the same string; keys the file leaves out give GROMACS 2022's default where the loader reads them
    (`DEFAULTS`). `explicit` holds what the file itself sets; `file` is its path."""

    def __init__(self, path):
        self.file = os.fspath(path)
        self.explicit = {}
        with open(self.file) as lines:
            for number, line in enumerate(lines, 1):
                text = line.split(";", 1)[0].strip()
                if not text:
                    continue
                if "=" not in text:
                    raise ValueError(f"{self.file}:{number}: not a 'key = value' line: {text!r}")
                key, value = text.split("=", 1)
                key = normalizeKey(key)
                if key in self.explicit:
                    raise ValueError(f"{self.file}:{number}: {key} is set twice")
                self.explicit[key] = value.strip()
        self._settings = {**DEFAULTS, **self.explicit}

    def __getitem__(self, key):
        return self._settings[normalizeKey(key)]

    def __iter__(self):
        return iter(self._settings)

    def __len__(self):
        return len(self._settings)

    def number(self, key):
        """The value of key as a float; ValueError naming the key and value if it is none."""
        try:
            return float(self[key])
        except ValueError:
            raise ValueError(f"{self.file}: {normalizeKey(key)} = {self[key]!r} is not a number") from None

    def includeDirs(self):
        """The folders that `include` (-I/folder ...) adds to the #include search."""
        folders = []
        for word in self["include"].split():
            if not word.startswith("-I") or len(word) < 3:
                raise ValueError(f"{self.file}: include = {self['include']!r}: {word!r} is not -I/folder")
            folders.append(word[2:])
        return folders

    def defines(self):
        """The names that `define` (-DNAME or -DNAME=value) defines for the topology: {name: value}."""
        names = {}
        for word in self["define"].split():
            if not word.startswith("-D") or len(word) < 3:
                raise ValueError(f"{self.file}: define = {self['define']!r}: {word!r} is not -DNAME or -DNAME=value")
            name, _, value = word[2:].partition("=")
            names[name] = value
        return names
