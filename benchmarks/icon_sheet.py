"""Render every icons/**/*.svg onto a contact sheet for visual review.

Usage: python3 benchmarks/icon_sheet.py [--color #7a4fb0] [--out /tmp/icon_sheet.png]

Each icon is shown at 96 px and at 24 px (tinted by replacing the literal
``currentColor``), with its relative file name underneath.
"""

import argparse
import io
import pathlib

import cairosvg
from PIL import Image, ImageDraw, ImageFont

ROOT = pathlib.Path(__file__).resolve().parent.parent
ICONS = ROOT / "icons"
FONT = ROOT / "fonts" / "AlegreyaSans-Regular.ttf"

CELL_W = 150
CELL_H = 150
COLS = 8


def render(svg_text, size):
    png = cairosvg.svg2png(bytestring=svg_text.encode("utf-8"),
                           output_width=size, output_height=size)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def build_sheet(color, out, background="#f4ecd8"):
    files = sorted(ICONS.glob("**/*.svg"))
    rows = (len(files) + COLS - 1) // COLS
    sheet = Image.new("RGBA", (COLS * CELL_W, max(rows, 1) * CELL_H),
                      background)
    draw = ImageDraw.Draw(sheet)
    try:
        font = ImageFont.truetype(str(FONT), 13)
    except OSError:
        font = ImageFont.load_default()
    for i, path in enumerate(files):
        x = (i % COLS) * CELL_W
        y = (i // COLS) * CELL_H
        svg = path.read_text(encoding="utf-8").replace("currentColor", color)
        big = render(svg, 96)
        small = render(svg, 24)
        sheet.alpha_composite(big, (x + 6, y + 8))
        sheet.alpha_composite(small, (x + 112, y + 44))
        draw.rectangle([x, y, x + CELL_W - 1, y + CELL_H - 1],
                       outline="#c9bda3")
        name = str(path.relative_to(ICONS))
        draw.text((x + 6, y + 112), name.split("/")[0] + "/",
                  fill="#555555", font=font)
        draw.text((x + 6, y + 127), name.split("/")[-1],
                  fill="#1f1a17", font=font)
    sheet.convert("RGB").save(out)
    return len(files)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--color", default="#7a4fb0")
    parser.add_argument("--out", default="/tmp/icon_sheet.png")
    parser.add_argument("--grey-out", default="/tmp/icon_sheet_grey.png")
    args = parser.parse_args()
    n = build_sheet(args.color, args.out)
    build_sheet("#8c8c8c", args.grey_out)
    print(f"{n} icons -> {args.out}, {args.grey_out}")


if __name__ == "__main__":
    main()
