#!/usr/bin/env python3
"""Renders the emoji icon set the window draws above residents' heads.

Bevy's text cannot draw colour emoji, so each emoji is a small PNG:
assets/emoji/<codepoints>.png (hex, joined by '-', without U+FE0F), 48x48.
Source: Noto Color Emoji (SIL OFL 1.1, Debian package fonts-noto-color-emoji).

The set is every emoji written in src/ and scenarios/ plus the common ones
below that models like to answer with. Run it again after adding emoji:

    apt-get install fonts-noto-color-emoji && pip install pillow
    python3 scripts/emoji_icons.py
"""

import pathlib
import re

from PIL import Image, ImageDraw, ImageFont

ROOT = pathlib.Path(__file__).resolve().parent.parent
FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
OUT = ROOT / "assets" / "emoji"
SIZE = 48

# Activities, food, moods, weather, places, work and tools.
EXTRA = """
😀 😃 😄 😁 😆 😅 😂 🙂 😉 😊 😇 🥰 😍 🤩 😘 😋 😛 🤔 🤗 🤫 🤐 😐 😑 😶 😏 😒 🙄 😬 😌 😔 😪 😴 😷 🤒 🤕 🥱 😎 🤓 🧐
😕 😟 🙁 😮 😯 😲 😳 🥺 😦 😧 😨 😰 😥 😢 😭 😱 😖 😣 😞 😓 😩 😫 😤 😡 😠 🥳 🥲 😵 🤯 🤠 🤝 👋 👍 👏 🙏 💪 👀
❤ 🧡 💛 💚 💙 💜 💔 💕 💖 ✨ ⭐ 🌟 💡 💤 💭 💬 🗨 ❗ ❓ ✅ ❌ ⚠ 🔥 💧 🌈 ☀ 🌙 ⛅ 🌧 ❄ 🌸 🌻 🌼 🍀 🍂 🍁 🌲 🌳 🌾 🌿 🍄 🪵
🍎 🍊 🍋 🍌 🍇 🍓 🍑 🥕 🌽 🥔 🍞 🥐 🧀 🥚 🍳 🥞 🍖 🍗 🥩 🍔 🍕 🥪 🌮 🍲 🥗 🍚 🍜 🍝 🍣 🍱 🥟 🍡 🍰 🎂 🍪 🍫 🍬 🍯 🥛 ☕ 🍵 🍶 🍺 🍻 🍷 🥤 🍽 🥢
🏠 🏡 🏘 🏪 🏫 🏥 🏛 ⛪ ⛺ 🏕 🏞 🌄 🌅 🌇 🌃 🛖 ⛲ 🪧 📌 📍 🗺 🧭 🚶 🏃 🧘 💃 🕺 🚴 🏊 🎣 🛌 🛏 🛋 🪑 🚪 🧹 🧺 🧼 🛁 🚿
📚 📖 📝 ✏ 🖊 📜 📰 📅 📆 🗓 ⏰ ⌛ 📦 🎁 🎈 🎉 🎊 🎶 🎵 🎸 🎹 🎻 🥁 🎤 🎨 🖌 🎭 🎲 🧩 ♟ 🃏 🎮 📷 🔭 🔬 🧪 ⚗ 🧬 🌱 🪴 💊 🩺 🩹 🧴
🔨 🪓 ⛏ 🛠 🔧 🪛 ⚙ 🧰 🪚 🧵 🧶 🪡 💼 💰 🪙 📈 🗣 👂 🐕 🐈 🐓 🐑 🐄 🐝 🦋 🐟 🐦 🌊 🏔 ⛰ 🪨 🔦 🕯 💌 📣 🔔 🏆 🤖 🧠 🫖 🥘 🧑‍🌾 🧑‍🍳 🧑‍🔬
"""

EMOJI = re.compile(
    "(?:[\U0001F300-\U0001FAFF\u2600-\u27BF\u2300-\u23FF\u2B00-\u2BFF]\uFE0F?"
    "(?:\u200D[\U0001F300-\U0001FAFF\u2600-\u27BF]\uFE0F?)*)"
)


def key(emoji: str) -> str:
    return "-".join(f"{ord(c):x}" for c in emoji if c != "\uFE0F")


def wanted() -> set[str]:
    found = set(EMOJI.findall(EXTRA))
    for folder in ("src", "scenarios"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".rs", ".yaml"):
                found.update(EMOJI.findall(path.read_text(encoding="utf-8")))
    return found


def main() -> None:
    # Noto Color Emoji only has bitmaps at 109 px.
    font = ImageFont.truetype(FONT, 109)
    OUT.mkdir(parents=True, exist_ok=True)
    made = 0
    for emoji in sorted(wanted()):
        canvas = Image.new("RGBA", (136, 128), (0, 0, 0, 0))
        ImageDraw.Draw(canvas).text((0, 0), emoji, font=font, embedded_color=True)
        box = canvas.getbbox()
        if box is None:
            print(f"skipped {emoji!r} ({key(emoji)}): not in the font")
            continue
        # Centre the glyph on a square before scaling it down.
        glyph = canvas.crop(box)
        side = max(glyph.size)
        square = Image.new("RGBA", (side, side), (0, 0, 0, 0))
        square.paste(glyph, ((side - glyph.width) // 2, (side - glyph.height) // 2))
        square.resize((SIZE, SIZE), Image.LANCZOS).save(OUT / f"{key(emoji)}.png", optimize=True)
        made += 1
    print(f"{made} icons in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
