# SPDX-License-Identifier: Apache-2.0
"""tessera.safetensors (tessera/safetensors.h) against the format itself: a
NumPy reader and a NumPy writer written here from the specification (8-byte
little-endian header length, JSON header, little-endian row-major data)
check every file Tessera writes and give it files it did not write; every
dtype, 0-d, empty and non-contiguous tensors, on the cpu, the emulated cuda
device and the arena device; corrupt files, each refused with a message
naming the file and the fault; saves that fail leave the destination as it
was."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera import safetensors as st
from tessera.safetensors import SafetensorError

from devices import arena_config, needs_arena, needs_emulator

# tessera dtype -> (format dtype, NumPy dtype of the file's bytes); bfloat16
# is read as its uint16 bits (NumPy has no bfloat16).
DTYPES = {
    tessera.bool: ("BOOL", "|b1"), tessera.uint8: ("U8", "|u1"), tessera.int8: ("I8", "|i1"),
    tessera.int16: ("I16", "<i2"), tessera.uint16: ("U16", "<u2"), tessera.int32: ("I32", "<i4"),
    tessera.uint32: ("U32", "<u4"), tessera.int64: ("I64", "<i8"), tessera.uint64: ("U64", "<u8"),
    tessera.float16: ("F16", "<f2"), tessera.bfloat16: ("BF16", "<u2"), tessera.float32: ("F32", "<f4"),
    tessera.float64: ("F64", "<f8"),
}
FORMAT_TO_NUMPY = {fmt: np.dtype(npd) for fmt, npd in DTYPES.values()}
ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4,
            "F64": 8, "I64": 8, "U64": 8}


# ---- the NumPy reader and writer -----------------------------------------------


def np_read(path):
    """(header dict, {name: ndarray}, raw bytes), checking the layout the
    reference writer produces: an 8-aligned header padded with spaces,
    offsets that tile the data buffer in order, each tensor aligned."""
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    text = raw[8:8 + n]
    assert n % 8 == 0, n
    assert text[:1] == b"{"
    body = text.rstrip(b" ")
    assert body.endswith(b"}") and len(text) - len(body) < 8
    header = json.loads(text.decode("utf-8"))
    data = raw[8 + n:]
    entries = sorted(((k, v) for k, v in header.items() if k != "__metadata__"),
                     key=lambda kv: tuple(kv[1]["data_offsets"]))
    at = 0
    arrays = {}
    for name, info in entries:
        begin, end = info["data_offsets"]
        assert begin == at, (name, begin, at)
        assert (8 + n + begin) % ITEMSIZE[info["dtype"]] == 0, (name, begin)
        at = end
        arrays[name] = np.frombuffer(data[begin:end], dtype=FORMAT_TO_NUMPY[info["dtype"]]).reshape(info["shape"])
    assert at == len(data)
    return header, arrays, raw


def np_write(path, tensors, metadata=None, order=None, pad=True):
    """A file from {name: (format dtype, ndarray)}: data in `order` (names),
    the header's keys in the dict's order."""
    order = order or list(tensors)
    header, chunks, at = {}, {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    offsets = {}
    for name in order:
        fmt, arr = tensors[name]
        b = np.ascontiguousarray(arr).astype(FORMAT_TO_NUMPY[fmt]).tobytes()
        offsets[name] = [at, at + len(b)]
        chunks[name] = b
        at += len(b)
    for name, (fmt, arr) in tensors.items():
        header[name] = {"dtype": fmt, "shape": list(arr.shape), "data_offsets": offsets[name]}
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks[n] for n in order))


def bf16_bits(values):
    """float32 values (exact in bfloat16) as bfloat16 bits."""
    return (np.asarray(values, dtype="<f4").view("<u4") >> 16).astype("<u2")


def as_numpy(t):
    """A tessera tensor's values as the NumPy array of its file bytes."""
    t = t.cpu()
    if t.dtype == tessera.bfloat16:
        return bf16_bits(t.to(tessera.float32).numpy())
    return t.numpy()


# Values per dtype, with the extremes of each.
VALUES = {
    tessera.bool: [True, False, True, True],
    tessera.uint8: [0, 1, 254, 255], tessera.int8: [-128, -1, 0, 127],
    tessera.int16: [-32768, -1, 2, 32767], tessera.uint16: [0, 1, 40000, 65535],
    tessera.int32: [-2 ** 31, -7, 9, 2 ** 31 - 1], tessera.uint32: [0, 3, 2 ** 31 + 5, 2 ** 32 - 1],
    tessera.int64: [-2 ** 63, -1, 2 ** 53 + 1, 2 ** 63 - 1], tessera.uint64: [0, 1, 2 ** 63 + 11, 2 ** 64 - 1],
    tessera.float16: [-0.0, 65504.0, float("inf"), 6e-8], tessera.bfloat16: [-0.0, 1.5, float("-inf"), 3.0e38],
    tessera.float32: [-0.0, 1e-45, float("nan"), 3.4e38], tessera.float64: [-0.0, 5e-324, float("nan"), 1e308],
}


def value_tensor(dtype, device="cpu"):
    return tessera.tensor(VALUES[dtype], dtype=dtype, device=device)


def same_bits(a, b):
    """Equal arrays, NaN and -0 included (compared as bytes)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize and a.tobytes() == b.tobytes()


# ---- round trips ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(DTYPES), ids=str)
def test_every_dtype_round_trips_and_reads_with_numpy(tmp_path, dtype):
    x = value_tensor(dtype)
    layouts = {
        "flat": x,
        "scalar": x[2],
        "empty": tessera.empty(0, 3, dtype=dtype),
        "matrix": x.reshape(2, 2),
        "transposed": x.reshape(2, 2).t(),
        "stepped": tessera.cat([x, x, x]).reshape(3, 4)[::2, 1::2],
        "expanded": x[:1].expand(3, 2),
    }
    path = tmp_path / "w.safetensors"
    st.save_file(layouts, path, metadata={"dtype": str(dtype)})
    header, arrays, _ = np_read(path)
    assert header["__metadata__"] == {"dtype": str(dtype)}
    back = st.load_file(path)
    for name, t in layouts.items():
        assert header[name]["dtype"] == DTYPES[dtype][0]
        assert header[name]["shape"] == list(t.shape)
        assert same_bits(arrays[name], as_numpy(t)), name
        assert back[name].dtype == dtype and back[name].shape == t.shape and back[name].is_contiguous()
        assert same_bits(as_numpy(back[name]), as_numpy(t)), name
    assert list(back) == [k for k, _ in sorted(((k, v["data_offsets"]) for k, v in header.items()
                                                 if k != "__metadata__"), key=lambda kv: kv[1])]


def test_numpy_writer_files_load_in_data_order(tmp_path):
    rng = np.random.default_rng(3)
    tensors = {
        "z.last_in_header": ("F64", rng.standard_normal((3, 2))),
        "a": ("I32", rng.integers(-100, 100, (4,))),
        "scalar": ("F16", np.array(1.5)),
        "empty": ("U8", np.zeros((2, 0), np.uint8)),
        "bits": ("BOOL", np.array([[True, False], [False, True]])),
        "bf": ("BF16", bf16_bits([1.0, -2.5, 0.15625])),
        "ünïcode ✓": ("U64", np.array([2 ** 64 - 1, 0], np.uint64)),
        "nan_payloads": ("F16", np.array([0x7fff, 0xfc01], "<u2").view("<f2")),  # kept bit for bit
    }
    order = ["bits", "a", "scalar", "empty", "z.last_in_header", "bf", "ünïcode ✓", "nan_payloads"]
    path = tmp_path / "numpy.safetensors"
    np_write(path, tensors, metadata={"format": "np", "note": "ünï"}, order=order, pad=False)
    with st.safe_open(path) as f:
        assert f.keys() == order
        assert f.metadata() == {"format": "np", "note": "ünï"}
    loaded = st.load_file(path)
    assert list(loaded) == order
    for name, (fmt, arr) in tensors.items():
        assert same_bits(as_numpy(loaded[name]), arr.astype(FORMAT_TO_NUMPY[fmt])), name


def test_header_layout_is_the_reference_writers(tmp_path):
    d = {"small": tessera.ones(3, dtype=tessera.uint8), "f32": tessera.ones(3), "i16": tessera.ones(5, dtype=tessera.int16),
         "f64": tessera.ones(1, dtype=tessera.float64), "second_f32": tessera.zeros(2, 2)}
    path = tmp_path / "layout.safetensors"
    st.save_file(d, path, metadata={"k": "v"})
    header, _, raw = np_read(path)
    (n,) = struct.unpack("<Q", raw[:8])
    assert list(header) == ["__metadata__", "f64", "f32", "second_f32", "i16", "small"]  # widest first, stable
    assert raw[8:8 + n].decode().startswith('{"__metadata__":{"k":"v"},"f64":{"dtype":"F64","shape":[1],'
                                           '"data_offsets":[0,8]}')
    assert st.save(d, metadata={"k": "v"}) == raw
    assert list(st.load(raw)) == list(header)[1:]
    # No metadata: no "__metadata__" key; no tensors: "{}" padded to 8.
    assert st.save({}) == struct.pack("<Q", 8) + b"{}      "
    assert st.load(st.save({})) == {}


def test_the_reference_implementations_own_examples():
    """Byte for byte the files the reference writer's unit tests expect
    (huggingface/safetensors, tensor.rs), and its documented example file."""
    attn = tessera.arange(6, dtype=tessera.float32).reshape(1, 2, 3)
    header = b'{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}'
    assert st.save({"attn.0": attn}) == struct.pack("<Q", 64) + header + np.arange(6, dtype="<f4").tobytes()
    header = b'{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}'
    assert st.save({"attn0": attn.reshape(1, 1, 2, 3)}) == (struct.pack("<Q", 72) + header + b" " * 7
                                                             + np.arange(6, dtype="<f4").tobytes())
    assert st.save({}, metadata={"framework": "pt"}) == (struct.pack("<Q", 40) + b'{"__metadata__":{"framework":'
                                                         b'"pt"}}' + b" " * 5)
    example = b'<\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}' + bytes(16)
    assert {k: v.tolist() for k, v in st.load(example).items()} == {"test": [[0, 0], [0, 0]]}


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_load_file_device_argument(tmp_path, device):
    path = tmp_path / "d.safetensors"
    st.save_file({"x": tessera.arange(4)}, path)
    if device == "cpu":
        assert st.load_file(path, device=device)["x"].tolist() == [0, 1, 2, 3]
    else:
        with pytest.raises(RuntimeError):
            st.load_file(path, device=device)


DEVICE_SCRIPT = r"""
import sys
import tessera
from tessera import safetensors as st
dev, path = sys.argv[1], sys.argv[2]
dtypes = [tessera.bool, tessera.uint8, tessera.int8, tessera.int16, tessera.int32, tessera.int64,
          tessera.float16, tessera.bfloat16, tessera.float32, tessera.float64]
src = {}
for i, dt in enumerate(dtypes):
    x = tessera.arange(24, device=dev).reshape(2, 3, 4).to(dt)
    src[str(dt) + ".t"] = x.transpose(0, 2)
    src[str(dt) + ".step"] = x[:, ::2, 1::2]
    src[str(dt) + ".0d"] = x[1, 2, 3]
    src[str(dt) + ".empty"] = x[:, :0]
st.save_file(src, path)
on_dev = st.load_file(path, device=dev)
on_cpu = st.load_file(path)
for k, v in src.items():
    a, b = on_dev[k], on_cpu[k]
    assert str(a.device) == dev and a.dtype == v.dtype and a.shape == v.shape, k
    assert a.cpu().tolist() == v.cpu().tolist() == b.tolist(), k
print("ok", len(src))
"""


def run_on(config, device, path):
    env = dict(os.environ, TESSERA_CONFIG=str(config), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", DEVICE_SCRIPT, device, str(path)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@needs_emulator
def test_round_trips_on_the_emulated_cuda_device(tmp_path):
    assert run_on(os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], "cuda:0", tmp_path / "c.safetensors") == ["ok", "40"]
    header, _, _ = np_read(tmp_path / "c.safetensors")
    assert header["tessera.float32.t"]["shape"] == [4, 3, 2]


@needs_arena
def test_round_trips_on_the_arena_device(tmp_path):
    assert run_on(arena_config(tmp_path), "arena:0", tmp_path / "a.safetensors") == ["ok", "40"]


def test_tensors_that_require_grad_save_their_values(tmp_path):
    w = tessera.ones(2, 2, requires_grad=True)
    y = w * 3
    st.save_file({"w": w, "y": y}, tmp_path / "g.safetensors")
    back = st.load_file(tmp_path / "g.safetensors")
    assert back["y"].tolist() == [[3.0, 3.0], [3.0, 3.0]] and not back["y"].requires_grad


# ---- corrupt files ----------------------------------------------------------------


def small_file(tmp_path):
    path = tmp_path / "small.safetensors"
    st.save_file({"w": tessera.tensor([1.0, 2.0, 3.0]), "b": tessera.tensor([True, False])}, path,
                 metadata={"m": "x"})
    return path


def refused(path, *fragments, exc=SafetensorError):
    with pytest.raises(exc) as e:
        st.load_file(path)
    message = str(e.value)
    assert message.startswith(str(path) + ": "), message
    for f in fragments:
        assert f in message, message
    return message


def test_every_truncation_of_a_small_file_is_refused_naming_the_file(tmp_path):
    good = small_file(tmp_path).read_bytes()
    (n,) = struct.unpack("<Q", good[:8])
    bad = tmp_path / "cut.safetensors"
    for length in range(len(good)):
        bad.write_bytes(good[:length])
        message = refused(bad)
        if length < 8:
            assert "too short for the 8-byte header length" in message
        elif length < 8 + n:
            assert "runs past the end" in message, (length, message)
        else:
            assert "out of range of the" in message, (length, message)
    bad.write_bytes(good)
    assert list(st.load_file(bad)) == ["w", "b"]


def raw_file(path, header, data=b"", n=None):
    """A file whose header is `header` (bytes, or an object dumped as JSON)."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if n is None else n) + text + data)
    return path


def f32(name="w", offsets=(0, 12), shape=(3,), dtype="F32"):
    return {name: {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}}


BOOLS = {"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}
CORRUPT = {
    "bad_json": (b'{"w": {"dtype": "F32",', b"", ["the header is not valid JSON (file byte"]),
    "trailing_garbage": (b'{} x', b"", ["not valid JSON"]),
    "number_overflow": (b'{"w": {"dtype": "U8", "shape": [1e999], "data_offsets": [0, 1]}}', b"\0",
                        ["the header is not valid JSON: number overflow parsing '1e999'"]),
    "invalid_utf8": (b'{"\xff": 1}', b"", ["not valid JSON"]),
    "list_header": (b"[1, 2]", b"", ["does not start with '{' (file byte 8 is 0x5b)"]),
    "string_header": (b'"w"', b"", ["does not start with '{'"]),
    "leading_space": (b' {}', b"", ["does not start with '{'"]),
    "empty_header": (b"", b"", ["the header is empty"]),
    "out_of_range": (f32(), b"\0" * 8, ["tensor 'w' data_offsets [0, 12] out of range of the 8-byte data buffer"]),
    "overlap": ({**f32("a", (0, 8), (2,)), **f32("b", (4, 12), (2,))}, b"\0" * 12,
                ["tensor 'b' data_offsets [4, 12] overlap tensor 'a' [0, 8]"]),
    "gap": ({**f32("a", (0, 8), (2,)), **f32("b", (12, 20), (2,))}, b"\0" * 20,
            ["tensor 'b' data_offsets [12, 20] leave a gap: bytes [8, 12) of the data buffer belong to no tensor"]),
    "not_from_zero": (f32("a", (4, 12), (2,)), b"\0" * 12, ["leave a gap: bytes [0, 4)"]),
    "trailing_data": (f32("a", (0, 8), (2,)), b"\0" * 12,
                      ["the tensors' data ends at byte 8 of the 12-byte data buffer: the last 4 bytes belong to no"]),
    "reversed_offsets": (f32("a", (8, 0), (2,)), b"\0" * 8, ["tensor 'a' data_offsets [8, 0] end before they begin"]),
    "size_mismatch": (f32("w", (0, 8), (3,)), b"\0" * 8,
                      ["tensor 'w' (F32, shape [3]) needs 12 bytes but data_offsets [0, 8] hold 8"]),
    "unknown_dtype": (f32(dtype="F13"), b"\0" * 12, ["tensor 'w' has an unknown dtype 'F13'"]),
    "f8_dtype": (f32(dtype="F8_E4M3", offsets=(0, 3)), b"\0" * 3,
                 ["tensor 'w' has dtype F8_E4M3, which Tessera has no dtype for"]),
    "dtype_not_string": ({"w": {"dtype": 4, "shape": [], "data_offsets": [0, 4]}}, b"\0" * 4,
                         ["tensor 'w' dtype is 4, not a string"]),
    "duplicate_tensor": (b'{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                         b'"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\0\0",
                         ["the header names 'w' twice"]),
    "duplicate_field": (b'{"w":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\0",
                        ["the header's entry 'w' has the key 'dtype' twice"]),
    "entry_not_object": ({"w": [1, 2]}, b"", ["tensor 'w' is a array, not an object"]),
    "missing_offsets": ({"w": {"dtype": "U8", "shape": [1]}}, b"\0", ["tensor 'w' has no data_offsets"]),
    "negative_dim": (f32(shape=(-3,)), b"\0" * 12, ["tensor 'w' shape[0] is -3, not a non-negative integer"]),
    "fractional_dim": (f32(shape=(1.5,)), b"\0" * 12, ["tensor 'w' shape[0] is 1.5, not a non-negative integer"]),
    "huge_dim": (f32(shape=(2 ** 64,)), b"", ["shape[0] is 1.8446744073709552e+19, not a non-negative integer"]),
    "dim_past_int64": (f32(shape=(2 ** 63,), offsets=(0, 0)), b"", ["shape[0] is 9223372036854775808, past 64-bit"]),
    "overflowing_shape": (f32(shape=(2 ** 62, 2 ** 62), offsets=(0, 0)), b"", ["shape [4611686018427387904, "
                                                                                "4611686018427387904] overflows"]),
    "negative_offset": (f32(offsets=(-4, 8)), b"\0" * 12, ["data_offsets[0] is -4, not a non-negative integer"]),
    "three_offsets": ({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1, 2]}}, b"\0",
                      ["tensor 'w' data_offsets is a list of 3, not a list of two integers"]),
    "too_many_dims": (f32(shape=(1,) * 17, offsets=(0, 4)), b"\0" * 4, ["tensor 'w' has 17 dims; Tessera allows at "
                                                                        "most 16"]),
    "metadata_not_object": ({"__metadata__": [1]}, b"", ["__metadata__ is a array, not an object of strings"]),
    "metadata_not_string": ({"__metadata__": {"k": 1}}, b"", ["__metadata__ 'k' is 1, not a string"]),
    "nul_in_name": ({"a\u0000b": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}}, b"",
                    ["the tensor name 'a\\x00b' holds a NUL character"]),
    "bool_byte": (BOOLS, b"\1\0\2", ["tensor 'm' element 2 (file byte %d) is 2, not a BOOL (0 or 1)"
                                       % (8 + len(json.dumps(BOOLS)) + 2)]),
    "deep_nesting": (b'{"w": {"x": ' + b"[" * 100 + b"]" * 100 + b"}}", b"", ["nests deeper than 64 levels"]),
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_corrupt_files_are_refused_naming_the_file_and_the_fault(tmp_path, case):
    header, data, fragments = CORRUPT[case]
    path = raw_file(tmp_path / (case + ".safetensors"), header, data)
    refused(path, *fragments)


def test_header_lengths_past_the_file_or_the_limit(tmp_path):
    refused(raw_file(tmp_path / "long.safetensors", b"{}", n=1000),
            "the header length 1000 runs past the end of the 10-byte file")
    refused(raw_file(tmp_path / "huge.safetensors", b"{}", n=2 ** 63),
            "the header length 9223372036854775808 exceeds the format's limit of 100000000 bytes")


def test_unreadable_paths(tmp_path):
    with pytest.raises(FileNotFoundError):
        st.load_file(tmp_path / "missing.safetensors")
    refused(tmp_path, "not a regular file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused(fifo, "not a regular file")  # without waiting for a writer


def test_missing_names_and_closed_files(tmp_path):
    path = small_file(tmp_path)
    f = st.safe_open(path)
    with pytest.raises(KeyError, match="no tensor named 'nope'"):
        f.get_tensor("nope")
    f.close()
    with pytest.raises(SafetensorError):
        f.keys()


# ---- saving: refusals and atomicity -----------------------------------------------


def test_save_refusals(tmp_path):
    path = tmp_path / "s.safetensors"
    with pytest.raises(SafetensorError, match="tensor 'z' is complex64, which safetensors has no dtype for"):
        st.save_file({"ok": tessera.ones(2), "z": tessera.ones(2, dtype=tessera.complex64)}, path)
    with pytest.raises(SafetensorError, match="cannot be called '__metadata__'"):
        st.save_file({"__metadata__": tessera.ones(1)}, path)
    with pytest.raises(TypeError, match="metadata must be a dict of str to str"):
        st.save_file({"a": tessera.ones(1)}, path, metadata={"k": 1})
    with pytest.raises(TypeError, match="tensor 'a' is a list"):
        st.save_file({"a": [1.0]}, path)
    with pytest.raises(SafetensorError, match="cannot create the temporary file"):
        st.save_file({"a": tessera.ones(1)}, tmp_path / "no" / "such" / "dir.safetensors")
    assert not path.exists()
    assert os.listdir(tmp_path) == []


def test_a_failing_save_leaves_the_destination_unchanged(tmp_path):
    path = small_file(tmp_path)
    before = path.read_bytes()
    with pytest.raises(SafetensorError):
        st.save_file({"w": tessera.ones(2, dtype=tessera.complex128)}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == [path.name]
    # A successful save replaces it whole.
    st.save_file({"new": tessera.ones(2)}, path)
    assert list(st.load_file(path)) == ["new"] and os.listdir(tmp_path) == [path.name]


FULL_DISK = r"""
import resource, signal, sys
import tessera
from tessera import safetensors as st
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    st.save_file({"big": tessera.ones(10000)}, sys.argv[1])
except st.SafetensorError as e:
    print(e)
"""


def test_a_save_that_fails_while_writing_leaves_the_destination_unchanged(tmp_path):
    path = small_file(tmp_path)
    before = path.read_bytes()
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(str(path) + ": cannot write: File too large"), out.stdout
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]  # the temporary file is gone
