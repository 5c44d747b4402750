"""Source bytes -> text, as Python reads a file (PEP 263): `rlm predict` and the gate alike.

A BOM or a `# -*- coding: latin-1 -*-` line names the encoding; without one it is UTF-8.
"""

from __future__ import annotations

import io
import tokenize


def decode(data: bytes) -> str:
    """The text of `data`; ValueError with a one-line reason when it cannot be read as Python would."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except SyntaxError as exc:  # an unknown codec, a BOM that contradicts the coding line, or bytes
        try:                    # in the first two lines that are not UTF-8 and no coding line
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise ValueError(f"not UTF-8 text (byte {bad.start})") from None
        raise ValueError(f"bad coding cookie: {exc.msg}") from None
    except LookupError:  # a codec that is not a text encoding, e.g. rot13
        raise ValueError(f"bad coding cookie: {encoding!r} is not a text encoding") from None
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise ValueError(f"not {name} text (byte {exc.start})") from None
