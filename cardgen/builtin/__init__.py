"""What cardgen ships for projects that do not bring their own: fonts, common templates, a skeleton.

A project's own files always come first: `fonts/` in the project replaces these fonts (see
`Project.fonts_dir`), and a template in the project's `templates/common/` hides the one of the
same name here. `cardgen new` starts a game from `skeleton/`.

In the source repository `fonts`, `templates` and `icons` are links to the repository's own
`fonts/`, `templates/common/` and `icons/common/` (the sample project's, which are cardgen's
defaults), so they exist
once; a wheel holds real copies, and an installed cardgen never reads the repository.
"""

from pathlib import Path

BUILTIN_DIR = Path(__file__).resolve().parent
FONTS_DIR = BUILTIN_DIR / "fonts"  # Cinzel and Alegreya Sans, SIL OFL (licences beside them)
TEMPLATES_DIR = BUILTIN_DIR / "templates"  # searched after a project's templates/common/
SKELETON_DIR = BUILTIN_DIR / "skeleton"  # `cardgen new`
ICONS_DIR = BUILTIN_DIR / "icons"  # shared icons (crown, suits...) `cardgen new` copies into icons/common/
