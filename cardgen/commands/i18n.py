"""`cardgen i18n extract|update|status`: a game's translations as gettext PO catalogs."""

from __future__ import annotations

import math

import click

from ..data.versions import load_game
from ..errors import display_path
from ..i18n import catalogs
from ..i18n.extract import extract
from ..i18n.status import language_status
from ..outputs import open_data_folder
from ..words import counted
from .common import game_option, project_from


@click.group(name="i18n")
def command():
    """Translations: extract the messages, update the catalogs, show how complete they are."""


@command.command(name="extract")
@game_option
@click.pass_context
def extract_command(ctx, game):
    """Write locale/cards.pot and locale/rulebook.pot from the data and the templates."""
    project = project_from(ctx)
    g = load_game(project, game)
    with open_data_folder(project, g.dir / "locale", g.dir, "i18n extract") as inside:
        for domain, catalog in extract(project, g).items():
            path = inside(catalogs.pot_path(g, domain))
            catalogs.write(path, catalog)
            click.echo(f"{display_path(path)}: {counted(sum(1 for m in catalog if m.id), 'message')}")


@command.command(name="update")
@game_option
@click.option("--lang", "-l", "langs", multiple=True, metavar="LANG",
              help="Language to update or start (repeatable). Default: every translation the game has.")
@click.option("--domain", type=click.Choice(["all", "cards", "rulebook"]), default="all", show_default=True,
              help="Which catalogs to start for a language named by --lang (existing ones are always updated).")
@click.pass_context
def update_command(ctx, game, langs, domain):
    """Extract, then merge the new messages into each language's catalogs (changed ones become fuzzy)."""
    project = project_from(ctx)
    g = load_game(project, game)
    with open_data_folder(project, g.dir / "locale", g.dir, "i18n update") as inside:
        templates = extract(project, g)
        targets = list(langs) or catalogs.translations(g)
        if not targets:
            raise click.UsageError(f"{g.name} has no translations yet; start one with --lang LANG")
        for lang in targets:  # every problem before the first file is written
            catalogs.check_language(lang)
            if lang == g.file.language:
                raise click.UsageError(f"'{lang}' is the source language of {g.name}: it needs no catalog")
            for name in templates:
                inside(catalogs.po_path(g, lang, name))
        for name, catalog in templates.items():
            catalogs.write(inside(catalogs.pot_path(g, name)), catalog)
        for lang in targets:
            for name, template in templates.items():
                path = inside(catalogs.po_path(g, lang, name))
                if path.is_file():
                    catalog = catalogs.read(path, lang)
                elif not langs or domain not in ("all", name):
                    continue  # a catalog is started only when asked for
                else:
                    catalog = catalogs.Catalog(locale=lang, project=template.project, creation_date=catalogs.FIXED_DATE,
                                               revision_date=catalogs.FIXED_DATE, fuzzy=False, charset="utf-8")
                catalogs.merge(catalog, template)
                catalogs.write(path, catalog)
                done = sum(1 for m in catalog if m.id and m.string and not m.fuzzy
                           and (all(m.string) if isinstance(m.string, (list, tuple)) else True))
                total = sum(1 for m in catalog if m.id)
                click.echo(f"{display_path(path)}: {done}/{total} translated")


@command.command(name="status")
@game_option
@click.option("--lang", "-l", "langs", multiple=True, metavar="LANG", help="Only this language (repeatable).")
@click.option("--all", "show_all", is_flag=True, help="List every untranslated string (default: the first 20).")
@click.pass_context
def status_command(ctx, game, langs, show_all):
    """Completeness per language; untranslated and outdated strings with file:line. Exit 1 when incomplete."""
    project = project_from(ctx)
    g = load_game(project, game)
    templates = extract(project, g)
    targets = list(langs) or catalogs.translations(g)
    total = sum(1 for c in templates.values() for m in c if m.id)
    click.echo(f"{g.name}: source language {g.file.language}, {counted(total, 'message')}; "
               f"translations: {', '.join(catalogs.translations(g)) or 'none'}")
    incomplete = False
    for lang in targets:
        status = language_status(g, lang, templates)
        incomplete |= not status.complete
        state = "complete" if status.complete else "INCOMPLETE"
        click.echo(f"{lang}: {math.floor(status.percent)}% {state}")
        for d in status.domains:
            if not d.exists:
                click.echo(f"  {d.domain}: no catalog ({counted(d.total, 'message')}; "
                           f"start it with `cardgen i18n update --game {g.id} --lang {lang} --domain {d.domain}`)")
                continue
            extra = f", {d.obsolete} obsolete" if d.obsolete else ""
            click.echo(f"  {d.domain}: {d.translated}/{d.total} translated, {len(d.untranslated)} untranslated, "
                       f"{len(d.outdated)} outdated{extra}")
            shown = 0
            for kind, entries in (("untranslated", d.untranslated), ("outdated", d.outdated)):
                for e in entries:
                    if not show_all and shown >= 20:
                        break
                    click.echo(f"    {e.where}: {kind}: {_short(e.msgid)}")
                    shown += 1
            hidden = len(d.untranslated) + len(d.outdated) - shown
            if hidden > 0:
                click.echo(f"    ... and {hidden} more (--all lists them)")
    if incomplete:
        ctx.exit(1)


@command.command(name="own")
@click.option("--lang", "-l", "langs", multiple=True, metavar="LANG",
              help="Language to start (repeatable); every language cardgen has is always updated.")
@click.pass_context
def own_command(ctx, langs):
    """cardgen's own words (print-sheet notice, footers, the common rulebook templates): extract,
    update their catalogs, show how complete they are (exit 1 when incomplete). For translators
    of cardgen, not of a game."""
    from ..i18n import own

    targets = sorted(set(own.languages()) | {catalogs.check_language(x) for x in langs})
    if own.SOURCE_LANG in targets:  # every problem before the first file is written
        raise click.UsageError(f"'{own.SOURCE_LANG}' is the language cardgen's page text is written in: "
                               "it needs no catalog")
    # cardgen's own catalogs: written only inside its locale folder (after links), through the
    # same guard as a game's
    with open_data_folder(None, own.LOCALE_DIR, own.LOCALE_DIR, "i18n own") as inside:
        paths = {(lang, d): inside(own.po_path(lang, d)) for lang in targets for d in own.DOMAINS}
        incomplete = False
        for domain in own.DOMAINS:
            template = own.extract(domain)
            catalogs.write(inside(own.pot_path(domain)), template)
            total = sum(1 for m in template if m.id)
            click.echo(f"{display_path(own.pot_path(domain))}: {counted(total, 'message')}")
            for lang in targets:
                path = paths[lang, domain]
                if path.is_file():
                    catalog = catalogs.read(path, lang)
                else:
                    catalog = catalogs.Catalog(locale=lang, project="cardgen", domain=domain,
                                               creation_date=catalogs.FIXED_DATE, revision_date=catalogs.FIXED_DATE,
                                               fuzzy=False, charset="utf-8")
                catalogs.merge(catalog, template)
                catalogs.write(path, catalog)
                done = sum(1 for m in catalog if m.id and m.string and not m.fuzzy
                           and (all(m.string) if isinstance(m.string, (list, tuple)) else True))
                incomplete |= done < total
                click.echo(f"{display_path(path)}: {done}/{total} translated")
    if incomplete:
        ctx.exit(1)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 70 else text[:67] + "...")
