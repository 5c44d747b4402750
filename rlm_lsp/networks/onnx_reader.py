"""Read an `.onnx` file's graph without the `onnx` package: the first stage of a network's text.

    .onnx bytes (memory-mapped) -> protobuf wire format -> RawGraph (nodes, inputs, outputs,
                                   initializer dims, small int64 constants, value_info)

`read_onnx` is a small reader for the protobuf wire format that decodes only ModelProto.graph, and
in it the nodes (op_type, inputs, outputs, attributes), initializer dims (and the values of small
int64 initializers, for Reshape), inputs, outputs and value_info. Weights are skipped, not decoded
(the file is memory-mapped). Files over `MAX_ONNX_BYTES` or graphs over `MAX_NODES` nodes are
refused with `GraphError`, as is anything that does not parse as an ONNX ModelProto with a graph.
Shape inference is the next stage (`rlm_lsp.networks.graph_shapes`), rendering the last (`rlm_lsp.networks.graph_text`).
"""

from __future__ import annotations

import math
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

from rlm_lsp.runtime.errors import GraphError

MAX_ONNX_BYTES = 2 << 30  # 2 GiB, protobuf's own limit for one message; larger models keep weights outside
MAX_NODES = 20_000


@dataclass
class Node:
    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)


@dataclass
class RawGraph:
    nodes: list[Node]
    inputs: dict[str, tuple | None]  # graph inputs (initializers excluded) -> shape (None dims = unknown)
    outputs: list[str]
    initializers: dict[str, tuple]  # name -> dims
    int_values: dict[str, list[int]] = field(default_factory=dict)  # small int64 constants (Reshape shapes)
    value_info: dict[str, tuple | None] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------
# protobuf wire format


def _varint(buf, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise GraphError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise GraphError("varint too long")


def _fields(buf):
    """Yields (field_number, wire_type, value); value is int for varint/fixed, memoryview for length-delimited."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise GraphError("field number 0")
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            if pos + 8 > end:
                raise GraphError("truncated fixed64")
            value = struct.unpack_from("<q", buf, pos)[0]
            pos += 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > end:
                raise GraphError("length-delimited field runs past the end")
            value = buf[pos : pos + length]
            pos += length
        elif wire == 5:
            if pos + 4 > end:
                raise GraphError("truncated fixed32")
            value = struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        else:
            raise GraphError(f"unsupported wire type {wire}")
        yield number, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _ints(wire, value) -> list[int]:
    if wire == 2:  # packed
        out, pos = [], 0
        while pos < len(value):
            v, pos = _varint(value, pos)
            out.append(_signed(v))
        return out
    return [_signed(value)]


def _str(value) -> str:
    return bytes(value).decode("utf-8", "replace")


def _tensor(buf) -> tuple[str, tuple, list[int] | None]:
    """TensorProto -> (name, dims, int values if small int64/int32)."""
    dims, name, dtype, raw, int64s, int32s = [], "", 0, None, [], []
    for number, wire, value in _fields(buf):
        if number == 1:
            dims.extend(_ints(wire, value))
        elif number == 2:
            dtype = value
        elif number == 8:
            name = _str(value)
        elif number == 9:
            raw = value
        elif number == 7:
            int64s.extend(_ints(wire, value))
        elif number == 5:
            int32s.extend(_ints(wire, value))
    values = None
    count = math.prod(dims) if dims else 1
    if dtype in (6, 7) and count <= 64:  # INT32, INT64
        if int64s or int32s:
            values = int64s or int32s
        elif raw is not None:
            fmt = "<%dq" % count if dtype == 7 else "<%di" % count
            if len(raw) == struct.calcsize(fmt):
                values = list(struct.unpack(fmt, raw))
    return name, tuple(dims), values


def _attribute(buf):
    name, kind, out = "", 0, {}
    for number, wire, value in _fields(buf):
        if number == 1:
            name = _str(value)
        elif number == 20:
            kind = value
        elif number == 2:
            out["f"] = struct.unpack("<f", struct.pack("<I", value))[0]
        elif number == 3:
            out["i"] = _signed(value)
        elif number == 4:
            out["s"] = _str(value)
        elif number == 5:
            out["t"] = _tensor(value)
        elif number == 6:
            out["g"] = True
        elif number == 7:
            if wire == 2:
                out.setdefault("floats", []).extend(struct.unpack("<%df" % (len(value) // 4), value))
            else:
                out.setdefault("floats", []).append(struct.unpack("<f", struct.pack("<I", value))[0])
        elif number == 8:
            out.setdefault("ints", []).extend(_ints(wire, value))
        elif number == 9:
            out.setdefault("strings", []).append(_str(value))
    for key in ("ints", "floats", "strings", "i", "f", "s", "t", "g"):  # AttributeType decides when set
        if key in out:
            return name, out[key]
    return name, {7: [], 6: [], 8: []}.get(kind)


def _node(buf) -> Node:
    node = Node("", [], [])
    for number, _, value in _fields(buf):
        if number == 1:
            node.inputs.append(_str(value))
        elif number == 2:
            node.outputs.append(_str(value))
        elif number == 4:
            node.op = _str(value)
        elif number == 5:
            key, val = _attribute(value)
            node.attrs[key] = val
    return node


def _value_info(buf) -> tuple[str, tuple | None]:
    name, shape = "", None
    for number, _, value in _fields(buf):
        if number == 1:
            name = _str(value)
        elif number == 2:  # TypeProto
            for n2, _, v2 in _fields(value):
                if n2 == 1:  # tensor_type
                    for n3, _, v3 in _fields(v2):
                        if n3 == 2:  # TensorShapeProto
                            dims = []
                            for n4, _, v4 in _fields(v3):
                                if n4 == 1:
                                    dim = None
                                    for n5, _, v5 in _fields(v4):
                                        if n5 == 1:
                                            dim = _signed(v5)
                                    dims.append(dim)
                            shape = tuple(dims)
    return name, shape


def read_onnx(path_or_bytes: str | Path | bytes) -> RawGraph:
    """Parses an ONNX ModelProto. Raises GraphError for files that are too large or not ONNX.

    Files are memory-mapped, so the weights (most of the bytes) are skipped without being read.
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        if len(path_or_bytes) > MAX_ONNX_BYTES:
            raise GraphError(f"input is {len(path_or_bytes) / 2**20:.0f} MiB, over the limit of "
                             f"{MAX_ONNX_BYTES // 2**20} MiB")
        return _parse_model(memoryview(bytes(path_or_bytes)), "input")
    path = Path(path_or_bytes)
    where = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_ONNX_BYTES:
            raise GraphError(f"{where}: file is {size / 2**20:.0f} MiB, over the limit of "
                             f"{MAX_ONNX_BYTES // 2**20} MiB")
        if size == 0:
            raise GraphError(f"{where}: empty file")
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise GraphError(f"{where}: cannot read: {exc.strerror or exc}") from None
    view = memoryview(mm)
    try:
        return _parse_model(view, where)
    finally:
        view.release()
        try:
            mm.close()
        except BufferError:  # a slice is still referenced somewhere; the map closes when it is collected
            pass


def _parse_model(data: memoryview, where: str) -> RawGraph:
    if not len(data):
        raise GraphError(f"{where}: empty file")
    try:
        graph_buf = None
        for number, wire, value in _fields(data):
            if number == 7 and wire == 2:
                graph_buf = value
        if graph_buf is None:
            raise GraphError("no graph (ModelProto field 7) found")
        nodes, inputs, outputs, inits, ints, vinfo = [], [], [], {}, {}, {}
        for number, wire, value in _fields(graph_buf):
            if wire != 2:
                continue
            if number == 1:
                nodes.append(_node(value))
                if len(nodes) > MAX_NODES:
                    raise GraphError(f"graph has over {MAX_NODES} nodes")
            elif number == 5:
                name, dims, values = _tensor(value)
                inits[name] = dims
                if values is not None:
                    ints[name] = values
            elif number == 11:
                inputs.append(_value_info(value))
            elif number == 12:
                outputs.append(_value_info(value)[0])
            elif number == 13:
                name, shape = _value_info(value)
                vinfo[name] = shape
        graph_buf = value = None
    except GraphError as exc:
        raise GraphError(f"{where}: not a valid ONNX model: {exc}") from None
    if not nodes or any(not n.op for n in nodes):
        raise GraphError(f"{where}: not a valid ONNX model: graph has no nodes or a node without op_type")
    graph_inputs = {name: shape for name, shape in inputs if name not in inits}
    for name, shape in inputs:
        vinfo.setdefault(name, shape)
    return RawGraph(nodes, graph_inputs, outputs, inits, ints, vinfo)
