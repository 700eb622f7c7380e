"""Languages: a game's source language, its translations as gettext PO catalogs, and the stage
that turns a snapshot into one language.

    strings     which strings of the data are translatable, with their source file:line
    extract     data + templates -> message catalogs (Babel), cards.pot and rulebook.pot
    catalogs    where catalogs live and how they are read, written and merged
    localise    snapshot -> the same snapshot in another language
    status      completeness per language, untranslated and outdated strings

The gettext of one language (`data/translator.py`) lives with the snapshot that carries it.
"""
