"""GROMACS's preprocessor of topology files, as grompp runs it: comments (;), line continuation (\\), #include
(searched in the including file's folder, then the include folders given, then $GMXLIB, then GROMACS's own top
folder), #define/#undef, #ifdef/#ifndef/#else/#endif and the substitution of defined names in the text."""
import os
import re

#: Where GROMACS installs its force fields (Debian's package and a default source build).
GROMACS_TOP_FOLDERS = ("/usr/share/gromacs/top", "/usr/local/gromacs/share/gromacs/top")

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PreprocessedLine:
    """One logical line of text after preprocessing, with the file and line number it came from."""
    __slots__ = ("text", "file", "lineNumber")

    def __init__(self, text, file, lineNumber):
        self.text, self.file, self.lineNumber = text, file, lineNumber

    def where(self):
        return f"{self.file}:{self.lineNumber}"


def _searchFolders(includeDirs):
    folders = [os.fspath(folder) for folder in includeDirs or ()]
    folders += [folder for folder in os.environ.get("GMXLIB", "").split(os.pathsep) if folder]
    return folders + list(GROMACS_TOP_FOLDERS)


def _logicalLines(path):
    """(line number, text) with comments removed and continued lines joined."""
    with open(path) as source:
        pending, start = "", None
        for number, line in enumerate(source, 1):
            text = line.split(";", 1)[0].rstrip("\n").rstrip()
            if start is None:
                start = number
            if text.endswith("\\") and ";" not in line:
                pending += text[:-1] + " "
                continue
            yield start, pending + text
            pending, start = "", None
        if pending:
            yield start, pending


def preprocess(path, includeDirs=None, defines=None):
    """The logical lines of a topology file and the files it includes, preprocessed as grompp does (nothing is defined
    but `defines`: {name: value or ""}).  Raises ValueError naming the file and line of a missing include, an
    unbalanced #else/#endif or an unknown directive."""
    macros = {str(name): str(value) for name, value in (defines or {}).items()}
    folders = _searchFolders(includeDirs)
    lines = []
    _preprocessFile(os.path.abspath(os.fspath(path)), folders, macros, lines, [])
    return lines


def _substitute(text, macros):
    if not macros:
        return text
    return _WORD.sub(lambda word: macros.get(word.group(0), word.group(0)), text)


def _preprocessFile(path, folders, macros, lines, including):
    if path in including:
        raise ValueError(f"{path} includes itself (through {' -> '.join(including)})")
    conditions = []  # (this branch is active, where its #ifdef or #ifndef is), innermost last
    for number, text in _logicalLines(path):
        stripped = text.strip()
        where = f"{path}:{number}"
        active = all(state for state, _ in conditions)
        if stripped.startswith("#"):
            words = stripped[1:].split(None, 2)
            directive = words[0] if words else ""
            if directive in ("ifdef", "ifndef"):
                if len(words) < 2:
                    raise ValueError(f"{where}: #{directive} without a name")
                defined = words[1] in macros
                conditions.append((defined if directive == "ifdef" else not defined, where))
            elif directive == "else":
                if not conditions:
                    raise ValueError(f"{where}: #else without #ifdef or #ifndef")
                state, opened = conditions.pop()
                conditions.append((not state, opened))
            elif directive == "endif":
                if not conditions:
                    raise ValueError(f"{where}: #endif without #ifdef or #ifndef")
                conditions.pop()
            elif not active:
                continue
            elif directive == "define":
                if len(words) < 2:
                    raise ValueError(f"{where}: #define without a name")
                macros[words[1]] = words[2].strip() if len(words) > 2 else ""
            elif directive == "undef":
                if len(words) < 2:
                    raise ValueError(f"{where}: #undef without a name")
                macros.pop(words[1], None)
            elif directive == "include":
                match = re.match(r'#\s*include\s*["<]([^">]+)[">]', stripped)
                if not match:
                    raise ValueError(f"{where}: cannot read the file name of {stripped!r}")
                _preprocessFile(_findInclude(match.group(1), path, folders, where), folders, macros, lines,
                                including + [path])
            else:
                raise ValueError(f"{where}: the preprocessor directive {stripped.split()[0]!r} is not supported "
                                 "(#include, #define, #undef, #ifdef, #ifndef, #else and #endif are)")
            continue
        if active and stripped:
            lines.append(PreprocessedLine(_substitute(stripped, macros), path, number))
    if conditions:
        raise ValueError(f"{conditions[-1][1]}: #ifdef or #ifndef without #endif in {path}")


def _findInclude(name, includingFile, folders, where):
    if os.path.isabs(name):
        candidates = [name]
    else:
        candidates = [os.path.join(folder, name) for folder in [os.path.dirname(includingFile)] + folders]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    raise ValueError(f"{where}: #include {name!r} not found in " + ", ".join(os.path.dirname(c) for c in candidates))
