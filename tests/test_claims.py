"""Every number the prose of a notebook states is one the notebook shows.

A number written in a markdown cell is a *claim*. It is backed when it appears

- in the source of a code cell of the same notebook (an input such as ``N = 14``: a numeric
  literal of the code, or a power of two literals such as ``2 ** 30``; comments and strings do
  not count; a power ``2^{16}`` in the prose is backed when its base and exponent are), or
- in an nbval-compared output of the same section (the cells under the same ``##`` heading
  whose outputs strict nbval compares: not tagged ``nbval-ignore-output`` or ``nbval-skip``).
  A section without compared outputs of its own (the opening, a summary) may restate any
  compared output of the notebook.

Numbers are compared after normalising their spelling: thin spaces, spaces and commas between
groups of three digits, ``1.27×10^30``, ``$1.27\\times 10^{30}$``, ``1.27e30``, ``10^{80}``,
``2^{30}``, "13.8 billion", the minus sign ``−`` and signs in general (the sign of a claim is
the reviewer's to check); a prose number matches a shown one when they agree to the coarser
of the two precisions (the prose "0.36" is backed by an output "0.356", "0.50" by ``0.5``).

Not claims, by rule:

1. lecture and notebook references: a number after Eq., Figure, Fig., Section, Sec., §,
   Chapter, Table, Exercise, notebook (and lists or ranges of them: "Sections 5.3-5.5");
   numbers with a leading zero ("05"); names joined by a hyphen (CD-1, PCD-10);
2. numbering: of headings ("## 3."), list items ("1. ") and exercises ("**2 ·");
3. inside TeX, sub- and superscripts of symbols ($J_{12}$, $s_1$, $x^2$, $2^{4+3}$'s
   exponent);
4. years of citations (a four-digit year after a name, "al." or an opening parenthesis) and
   arXiv identifiers;
5. code, links and URLs inside the prose (backticks, ``[text](target)``'s target);
6. the "Exercises" section: its numbers are the questions' givens.

Run ``python tests/test_claims.py notebooks/02_z_ledger.ipynb`` to list a notebook's
unbacked claims.
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "solutions").glob("*.ipynb")
)
NOT_COMPARED = ("nbval-ignore-output", "nbval-skip")
GIVENS = re.compile(r"^exercises\b", re.I)  #: sections whose numbers are the questions' givens

_SEP = r"[ ,\u2009\u202f\u00a0]"
_MANTISSA = rf"\d{{1,3}}(?:{_SEP}\d{{3}})+(?![\d.])|\d+(?:\.\d+)?|\.\d+"
NUMBER = re.compile(
    rf"""(?<![\w.])(?<![A-Za-z]-)
    (?:
      (?P<base>\d+)\s*\^\s*(?:\{{\s*(?P<power>-?\d+)\s*\}}|(?P<power1>\d))(?![\w{{])
    | (?P<mant>{_MANTISSA})
      (?:\s*(?:×|\\times|\\cdot|x|\*)\s*10\s*\^\s*(?:\{{\s*(?P<exp>-?\d+)\s*\}}|(?P<exp1>-?\d+))
       |[eE](?P<e>[-+]?\d+)
       |\s*(?P<word>thousand|million|billion|trillion)\b)?
    )(?![\w])""",
    re.X,
)
_WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_REFERENCE = re.compile(
    r"(?:\b(?:eqs?|equations?|figs?|figures?|sections?|secs?|chapters?|tables?|exercises?"
    r"|notebooks?|theorems?|lemmas?|appendix|algorithms?)\b\.?|§+)\s*\(?\d+(?:\.\d+)*[a-z]?\)?"
    r"(?:\s*(?:,|and|or|&|to|-|–|—)\s*\(?(?:\d+(?:\.\d+)+|\d{1,2}(?![\d.]))[a-z]?\)?)*",
    re.I,
)
_NUMBERING = re.compile(
    r"^(\s*(?:>\s*)*(?:#+\s*|[-*+]\s+)?(?:\*\*)?)\d+[a-z]?(?:\.\d+)*\s*[.):·](?=\s)"
)
_YEAR = re.compile(
    r"(?:(?<=[A-Za-z]\. )|(?<=[A-Za-z], )|(?<=[A-Za-z] )|(?<=\())(?:19|20)\d\d[a-z]?\b"
)
_ARXIV = re.compile(r"arxiv[:.]\s*\S+", re.I)


@dataclass(frozen=True)
class Number:
    """A number as written: its value, half a unit of its last written digit (its
    resolution) and the same without trailing zeros after the point (0.50: 0.005 and 0.05)."""

    value: float
    resolution: float
    text: str
    stripped: float = 0.0

    def backed_by(self, shown: Number) -> bool:
        """This claim agrees with ``shown`` to the claim's precision, and ``shown`` is at least
        as precise as the claim (trailing zeros aside): 0.36 by 0.356, 0.50 by 0.5, not 0.224
        by 0."""
        eps = 1e-9 * max(abs(self.value), abs(shown.value)) + 1e-300
        close = abs(abs(self.value) - abs(shown.value)) <= self.resolution + eps
        return close and shown.resolution <= max(self.stripped, self.resolution) + eps


def _number(match: re.Match) -> Number | None:
    if match["base"]:
        power = int(match["power"] or match["power1"])
        try:
            return Number(float(int(match["base"]) ** power), 0.5, match[0], 0.5)
        except OverflowError:
            return None
    mantissa = re.sub(_SEP, "", match["mant"])
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = match["exp"] or match["exp1"] or match["e"]
    scale = int(exponent) if exponent else _WORDS.get(match["word"] or "", 0)
    try:
        value = float(mantissa) * 10.0**scale
    except OverflowError:
        return None
    kept = len(mantissa.split(".")[1].rstrip("0")) if "." in mantissa else 0
    return Number(value, 0.5 * 10.0 ** (scale - decimals), match[0], 0.5 * 10.0 ** (scale - kept))


def numbers(text: str) -> list[Number]:
    """Every number in ``text`` (normalised spelling; see the module docstring)."""
    text = text.replace("−", "-").replace("\\,", "\u2009").replace("{,}", ",")
    return [n for n in map(_number, NUMBER.finditer(text)) if n is not None]


# -- prose ------------------------------------------------------------------------------------


def _tex(math_text: str) -> str:
    """A TeX span without the sub- and superscripts of symbols (numeric powers stay)."""
    text = re.sub(r"\\[dt]?frac\s*(\d)\s*(\d)", r"\1/\2", math_text)
    text = re.sub(r"_\s*\{[^{}]*\}|_\s*\\?\w", " ", text)
    text = re.sub(r"\d+\s*\^\s*(?:\{(?!\s*-?\d+\s*\})[^{}]*\}|[A-Za-z])", " ", text)  # 2^{N-30}
    text = re.sub(r"(?<![\d\s])\s*\^\s*(?:\{[^{}]*\}|\\?\w)", " ", text)  # x^2, e^{-E}
    return text


def prose(markdown: str) -> str:
    """The part of a markdown cell that can state claims: rules 1-5 applied."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<[^>]+>|https?://\S+", " ", text)
    text = _ARXIV.sub(" ", text)
    text = re.sub(r"\$\$(.+?)\$\$", lambda m: " " + _tex(m[1]) + " ", text, flags=re.S)
    text = re.sub(r"\$(.+?)\$", lambda m: " " + _tex(m[1]) + " ", text, flags=re.S)
    lines = [_NUMBERING.sub(r"\1", line) for line in text.splitlines()]
    text = _REFERENCE.sub(" ", "\n".join(lines))
    return _YEAR.sub(" ", text)


def claims(markdown: str) -> list[Number]:
    """The numbers a markdown cell states (without numbers written with a leading zero, which
    name notebooks: 01, 05)."""
    return [n for n in numbers(prose(markdown)) if not re.match(r"0\d", n.text.strip())]


def _context(markdown: str, number: Number) -> str:
    flat = re.sub(r"[ \t\r\n]+", " ", markdown.replace("\\,", "\u2009").replace("−", "-"))
    i = flat.find(number.text.strip())
    if i < 0:
        return flat[:70] + "…"
    return "…" + flat[max(0, i - 40) : i + 40] + "…"


# -- notebooks --------------------------------------------------------------------------------


def code_numbers(source: str) -> list[Number]:
    """Numeric literals of a code cell (and powers of two literals), exact."""
    out = []
    lines = "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(lines).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token in tokens:
        if token.type == tokenize.NUMBER and not token.string.endswith(("j", "J")):
            value = float(ast.literal_eval(token.string.replace("_", "")))
            out.append(Number(value, 0.0, token.string))
    try:
        tree = ast.parse(lines)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Pow)
            and all(
                isinstance(x, ast.Constant) and isinstance(x.value, int)
                for x in (node.left, node.right)
            )
            and abs(node.right.value) < 400
        ):
            out.append(Number(float(node.left.value**node.right.value), 0.0, ast.unparse(node)))
    return out


def output_text(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append("".join(out["text"]))
        elif out["output_type"] in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/html" in data:
                html = re.sub(r"data:image/[^\"']+", " ", "".join(data["text/html"]))
                parts.append(re.sub(r"<[^>]+>", " ", html))
            elif "text/plain" in data:
                parts.append("".join(data["text/plain"]))
    return "\n".join(parts)


@dataclass
class Section:
    heading: str
    prose: list  # markdown chunks
    outputs: list  # Number, from compared outputs


def sections(nb: dict) -> list[Section]:
    """The notebook split at its ``##`` headings (a heading may sit inside a markdown cell)."""
    out = [Section("(opening)", [], [])]
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            chunk = []
            for line in source.splitlines():
                if re.match(r"##\s", line):
                    out[-1].prose.append("\n".join(chunk))
                    out.append(Section(line.lstrip("# ").strip(), [], []))
                    chunk = []
                chunk.append(line)
            out[-1].prose.append("\n".join(chunk))
        elif cell["cell_type"] == "code":
            tags = cell.get("metadata", {}).get("tags", [])
            if cell.get("execution_count") is not None and not set(tags) & set(NOT_COMPARED):
                out[-1].outputs += numbers(output_text(cell))
    return out


def _backed(claim: Number, candidates: list[Number]) -> bool:
    """Backed by one of ``candidates``; a power a^b also when a and b both are (2^{16} where
    the code enumerates 16 units)."""
    if any(claim.backed_by(n) for n in candidates):
        return True
    power = re.fullmatch(r"(\d+)\s*\^\s*\{?\s*(\d+)\s*\}?", claim.text.strip())
    return bool(power) and all(
        _backed(Number(float(x), 0.5, x, 0.5), candidates) for x in power.groups()
    )


def unbacked_claims(path: Path) -> list[str]:
    """One line per number of the prose of ``path`` that neither code nor output backs."""
    nb = json.loads(Path(path).read_text())
    code = [
        n
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for n in code_numbers("".join(c["source"]))
    ]
    parts = sections(nb)
    everywhere = [n for s in parts for n in s.outputs]
    problems = []
    for section in parts:
        if GIVENS.match(re.sub(r"^[\d.\s]*", "", section.heading)):
            continue
        shown = section.outputs or everywhere
        for chunk in section.prose:
            for claim in claims(chunk):
                if _backed(claim, code + shown):
                    continue
                plain = claim.text.strip().replace("\u2009", " ")
                context = _context(chunk, claim).replace("\u2009", " ")
                problems.append(f'section "{section.heading}": {plain} in "{context}"')
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_shown(path):
    problems = unbacked_claims(path)
    assert not problems, (
        f"{path.name}: {len(problems)} number(s) in the prose that no code cell of the notebook "
        "has and no compared output of their section shows. Print each in a compared cell of "
        "its section (or correct the prose):\n  " + "\n  ".join(problems)
    )


# -- the rules themselves ---------------------------------------------------------------------


def _claims(markdown: str) -> list[float]:
    return [n.value for n in claims(markdown)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("13.8 billion years", 13.8e9),
        ("the roughly $10^{80}$ atoms", 1e80),
        ("$1.27\\times 10^{30}$ terms", 1.27e30),
        ("1.27×10^30 terms", 1.27e30),
        ("about 1e-3 s", 1e-3),
        ("$2^{30}$ states", 2.0**30),
        ("20\u2009000 chains", 20000.0),
        ("30 000 updates", 30000.0),
        ("1,024 rows", 1024.0),
        ("a gap of −0.39", 0.39),
    ],
)
def test_spellings_are_normalised(text, value):
    assert _claims(text) == [pytest.approx(value)]


@pytest.mark.parametrize(
    "text",
    [
        "Eq. 5.4 and Figure 5.3, as in Section 5.7 (Sections 5.3-5.5, §5.2).",
        "Companion to Sections 5.2, 5.4 and 5.5 of the lecture; Theorem 12.4 of Levin",
        "the couplings $J_{12}$, $s_1 s_2$ and $x^2$ over $2^{4+3}$",
        "Neal 2001; Salakhutdinov & Murray 2008; Decelle et al. (2018); arXiv:1803.01960",
        "## 3. How many rows?",
        "1. write the sum out",
        "**2 · A closed form.** see notebook 05 and exercise 2",
        "CD-1, CD-10 and PCD-1 in `train(n_steps=300)` [link](solutions/01_x.ipynb#Exercise-1)",
    ],
)
def test_references_indices_years_and_numbering_are_not_claims(text):
    assert _claims(text) == []


@pytest.mark.parametrize(
    ("claim", "shown", "backed"),
    [
        ("0.36", "0.356", True),
        ("0.50", "0.5", True),
        ("0.35", "0.356", False),
        ("0.50", "0.47", False),
        ("0.224", "0", False),
        ("$2^{30}$", "1.07e9", False),
        ("~1.00×10^80", "1e80", True),
        ("266", "265.9", True),
        ("100", "59", False),
    ],
)
def test_a_claim_is_backed_to_the_coarser_precision(claim, shown, backed):
    (a,), (b,) = numbers(claim), numbers(shown)
    assert a.backed_by(b) is backed


def _notebook(cells):
    def cell(kind, source, tags=(), outputs=()):
        c = {"cell_type": kind, "source": source, "metadata": {"tags": list(tags)}}
        if kind == "code":
            c["execution_count"] = 1
            c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": t} for t in outputs]
        return c

    return {"cells": [cell(*c) for c in cells]}


def test_a_wrong_crossing_fails_and_a_shown_one_passes(tmp_path):
    """The claim of notebook 02: the crossings are at N = 100 and 500 (they are at 59, 266)."""
    cells = [
        ("markdown", "## 3. How many rows?"),
        ("code", "print(crossings())", (), ["crossings at N = 59 and 266\n"]),
        ("markdown", "The ratio passes one at $N = 100$ and at $N = 500$; at 59 and 266."),
        ("code", "show_the_wall()", ["nbval-ignore-output"], ["N = 100 and 500\n"]),
        ("markdown", "## 4. Elsewhere\nThe gradient is $0.50 - 0.276 = +0.224$."),
        ("code", "data_moment = 0.50", (), ["<s1 s2>_model = 0.276\n"]),
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(_notebook(cells)))
    found = unbacked_claims(path)
    assert [line.split('": ')[1].split()[0] for line in found] == ["100", "500", "0.224"]


# -- command line -----------------------------------------------------------------------------

if __name__ == "__main__":
    total = 0
    for arg in sys.argv[1:] or map(str, NOTEBOOKS):
        found = unbacked_claims(Path(arg))
        total += len(found)
        print(f"# {arg}: {len(found)} unbacked number(s)")
        print("\n".join(f"  {line}" for line in found))
    sys.exit(1 if total else 0)
