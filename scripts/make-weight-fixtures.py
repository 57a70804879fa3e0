#!/usr/bin/env python3
"""Writes tests/fixtures/weights/: .safetensors and .npy files in every dtype, with the values numpy and torch give
when they cast them, for the package's weight-file tests. Run with Debian's python3-numpy and python3-torch:
    python3 scripts/make-weight-fixtures.py
The files are committed; the tests read them and never run this."""
import json
import pathlib
import struct

import numpy as np
import torch

OUT = pathlib.Path(__file__).resolve().parent.parent / 'tests' / 'fixtures' / 'weights'


def safetensors(path, tensors, metadata=None):
    """tensors: [(name, dtype, shape, raw bytes)] in data order."""
    header, offset = {}, 0
    for name, dtype, shape, raw in tensors:
        header[name] = {'dtype': dtype, 'shape': list(shape), 'data_offsets': [offset, offset + len(raw)]}
        offset += len(raw)
    if metadata:
        header['__metadata__'] = metadata
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    path.write_bytes(struct.pack('<Q', len(text)) + text + b''.join(raw for *_, raw in tensors))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    expected = {}
    tensors = []

    def add(name, dtype, array_bytes, shape, float_bits=None, integers=None):
        tensors.append((name, dtype, shape, array_bytes))
        if float_bits is not None:
            (OUT / f'{name}.f32').write_bytes(np.asarray(float_bits, dtype='<f4').tobytes())
            expected[name] = {'dtype': dtype, 'shape': list(shape), 'float32': f'{name}.f32'}
        else:
            expected[name] = {'dtype': dtype, 'shape': list(shape), 'integers': [str(v) for v in integers]}

    # Every 16-bit code: F16 through numpy's cast, BF16 through torch's.
    codes = np.arange(65536, dtype='<u2')
    add('f16_all', 'F16', codes.tobytes(), (256, 256), float_bits=codes.view('<f2').astype(np.float32))
    bf16 = torch.from_numpy(codes.view(np.int16).copy()).view(torch.bfloat16)
    add('bf16_all', 'BF16', codes.tobytes(), (65536,), float_bits=bf16.to(torch.float32).numpy())
    # F64 values that round, overflow, underflow to subnormals and zero, and the specials; numpy's cast rounds to nearest.
    f64 = np.array([0.1, 1 / 3, -2.5, 1e-40, 1e-46, 3.4028235677973366e38, 1e39, -1e39, -0.0, np.inf, np.nan, 123456789.123, 2 ** -149, 2 ** -150 * 1.5],
                   dtype='<f8')
    add('f64_rounding', 'F64', f64.tobytes(), (2, 7), float_bits=f64.astype(np.float32))
    f32 = np.random.default_rng(5).standard_normal(24).astype('<f4')
    add('f32_rows', 'F32', f32.tobytes(), (4, 6), float_bits=f32)
    # F8 E5M2 is the top byte of an F16: numpy's F16 cast of (code << 8) is its reference. (No F8 type in this
    # torch; E4M3's reference is in the tests, from the OCP definition.)
    bytes256 = np.arange(256, dtype=np.uint8)
    add('f8_e5m2_all', 'F8_E5M2', bytes256.tobytes(), (16, 16), float_bits=(bytes256.astype('<u2') << 8).view('<f2').astype(np.float32))
    tensors.append(('f8_e4m3_all', 'F8_E4M3', (16, 16), bytes256.tobytes()))
    expected['f8_e4m3_all'] = {'dtype': 'F8_E4M3', 'shape': [16, 16], 'definition': 'ocp-e4m3fn'}
    # Integers, with each type's extremes; BERT's position_ids beside them.
    for name, dtype, numpy_type in [('i64', 'I64', '<i8'), ('i32', 'I32', '<i4'), ('i16', 'I16', '<i2'), ('i8', 'I8', 'i1'),
                                    ('u64', 'U64', '<u8'), ('u32', 'U32', '<u4'), ('u16', 'U16', '<u2'), ('u8', 'U8', 'u1')]:
        info = np.iinfo(numpy_type)
        low, high = (max(info.min, -(2 ** 53 - 1)), min(info.max, 2 ** 53 - 1))
        values = np.array([low, -1 if low < 0 else 0, 0, 1, 7, high], dtype=numpy_type)
        add(name, dtype, values.tobytes(), (2, 3), integers=values.tolist())
    flags = np.array([True, False, False, True, True], dtype=np.bool_)
    add('bool', 'BOOL', flags.tobytes(), (5,), integers=flags.astype(int).tolist())
    position_ids = torch.arange(512, dtype=torch.int64).unsqueeze(0)
    add('embeddings.position_ids', 'I64', position_ids.numpy().astype('<i8').tobytes(), (1, 512), integers=position_ids.flatten().tolist())
    # Past the safe integers: an error for this tensor alone.
    unsafe = np.array([2 ** 53 + 1, 5], dtype='<i8')
    tensors.append(('i64_unsafe', 'I64', (2,), unsafe.tobytes()))
    expected['i64_unsafe'] = {'dtype': 'I64', 'shape': [2], 'error': 'holds 9007199254740993 at element 0'}
    # A type posembed does not read: described, and refused only when asked for.
    tensors.append(('complex', 'C64', (1,), np.array([1 + 2j], dtype='<c8').tobytes()))
    expected['complex'] = {'dtype': 'C64', 'shape': [1], 'error': 'does not read'}
    safetensors(OUT / 'dtypes.safetensors', tensors, metadata={'format': 'pt', 'written_by': 'make-weight-fixtures.py'})

    # .npy files as numpy writes them, C and Fortran order.
    npy = {}
    matrix = np.arange(12, dtype=np.int32).reshape(3, 4) * 1000 - 5000
    for name, array in [('int32_fortran', np.asfortranarray(matrix)), ('int64', np.arange(-3, 3, dtype='<i8')),
                        ('uint8', np.arange(250, 256, dtype=np.uint8)), ('bool', flags),
                        ('float64_fortran', np.asfortranarray(np.linspace(-1, 1, 24).reshape(2, 3, 4))), ('float16', np.array([1.5, -65504, 6e-8], dtype='<f2'))]:
        np.save(OUT / f'{name}.npy', array)
        row_major = np.ascontiguousarray(array)
        if array.dtype.kind == 'f':
            (OUT / f'{name}.f32').write_bytes(row_major.astype('<f4').tobytes())
            npy[name] = {'shape': list(array.shape), 'float32': f'{name}.f32'}
        else:
            npy[name] = {'shape': list(array.shape), 'integers': [str(v) for v in row_major.astype(int).flatten().tolist()]}
    (OUT / 'expected.json').write_text(json.dumps({'safetensors': expected, 'npy': npy}, indent=1) + '\n')


if __name__ == '__main__':
    main()
