"""Sphinx configuration of the openmm-narumi documentation: the user guide (the Markdown pages of docs/, read with
MyST), the Python API from the installed package's docstrings (autodoc), the C++ API from the public headers
(Doxygen's XML, rendered by breathe) and the command lines from their argparse parsers (sphinx-argparse).

Build it with ``bash scripts/build_docs.sh`` (or ``sphinx-build -W --keep-going -b html docs docs/_build/html``
once docs/requirements.txt and the package are installed); docs/development.md says more."""
import importlib
import inspect
import os
import pkgutil
import re
import subprocess

from sphinx.errors import PycodeError, SphinxError
from sphinx.pycode import ModuleAnalyzer

DOCS = os.path.dirname(os.path.abspath(__file__))

try:
    import openmmnarumi
except ImportError as error:  # autodoc would otherwise report every page's objects as missing, one by one
    raise RuntimeError(f"the documentation is built from the installed package, and importing openmmnarumi failed "
                       f"({error}): install it first (bash scripts/setup.sh)") from None

project = "openmm-narumi"
author = "the openmm-narumi developers"
copyright = "the openmm-narumi developers"
release = openmmnarumi.__version__
version = release

extensions = ["sphinx.ext.autodoc", "myst_parser", "breathe", "sphinxarg.ext"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# The data folders of the accuracy study and the profiles hold results, not pages.
exclude_patterns = ["_build", "accuracy", "profiles"]

# Straight quotes and dashes: the pages and docstrings quote options ("--r-max") and code in plain text.
smartquotes = False

html_theme = "furo"
html_title = f"openmm-narumi {release}"

# MyST: "page.md#section" links of the Markdown pages resolve to their headings.
myst_heading_anchors = 4

# autodoc: the pages say ":members:" (a default of True would override their lists of names); members in the order of
# the source, constants included (their "#:" comments), without SWIG's ownership flag.
autodoc_default_options = {"undoc-members": True, "member-order": "bysource", "exclude-members": "thisown"}
autoclass_content = "both"  # the SWIG classes document their constructors' arguments in __init__
autodoc_typehints = "none"  # the docstrings say types and units; the dataclasses' annotations would repeat them

# breathe: the public C++ API, from the XML that Doxygen writes here (see builder-inited below).
DOXYGEN_XML = os.path.join(DOCS, "_build", "doxygen", "xml")
breathe_projects = {"openmm-narumi": DOXYGEN_XML}
breathe_default_project = "openmm-narumi"


class DoxygenError(SphinxError):
    category = "Doxygen error"


def runDoxygen(app):
    """Doxygen's XML of openmmapi/include, written before the pages are read; a Doxygen warning fails the build."""
    os.makedirs(os.path.dirname(DOXYGEN_XML), exist_ok=True)
    try:
        subprocess.run(["doxygen", "Doxyfile"], cwd=DOCS, check=True)
    except FileNotFoundError:
        raise DoxygenError("doxygen is not installed (Debian: apt-get install doxygen; scripts/build_docs.sh "
                           "installs it)") from None
    except subprocess.CalledProcessError:
        raise DoxygenError("doxygen failed on the warnings above (docs/Doxyfile: every warning is an error, an "
                           "undocumented public member of openmmapi/include included)") from None


#: Links of the Markdown pages to the repository's CHANGELOG.md (README.md's and docs/development.md's): on GitHub the
#: file, in the site its page.
CHANGELOG_LINK = re.compile(r"\]\((\.\./)?CHANGELOG\.md\)")


def changelogLinks(source):
    source[0] = CHANGELOG_LINK.sub("](changelog.md)", source[0])


def isDeprecatedAlias(app, what, name, obj, skip, options):
    """Deprecated aliases (docs/python-api.md lists them) stay out of the reference."""
    doc = getattr(obj, "__doc__", None) or ""
    return True if doc.startswith("Deprecated alias") else None


def definingModuleDoc(app, what, name, obj, options, lines):
    """A constant re-exported by a package (openmmnarumi.hcp.DEFAULT_THRESHOLDS) gets the "#:" comment of the module
    that defines it (openmmnarumi/hcp/engine.py), which autodoc looks for only in the package's own source, in
    place of its type's docstring (a float's or a tuple's), which autodoc shows otherwise."""
    if what != "data" or (lines and "\n".join(lines).strip() != inspect.cleandoc(type(obj).__doc__ or "")):
        return
    lines.clear()
    packageName, _, attribute = name.rpartition(".")
    package = importlib.import_module(packageName)
    modules = [packageName] + [f"{packageName}.{info.name}" for info in pkgutil.iter_modules(
        getattr(package, "__path__", [])) if info.name != "__main__"] + ["openmmnarumi._units"]
    for moduleName in modules:
        try:
            docs = ModuleAnalyzer.for_module(moduleName).find_attr_docs()
        except PycodeError:  # a compiled module has no source to analyse
            continue
        if ("", attribute) in docs:
            lines.extend(docs[("", attribute)])
            return


def setup(app):
    app.connect("builder-inited", runDoxygen)
    app.connect("source-read", lambda app, docname, source: changelogLinks(source))
    app.connect("include-read", lambda app, path, parent, source: changelogLinks(source))
    app.connect("autodoc-skip-member", isDeprecatedAlias)
    app.connect("autodoc-process-docstring", definingModuleDoc)
