// Small ONNX graphs built in code, for ONNX Runtime Web as a benchmark peer.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const ELEMENT = { float32: onnx.TensorProto.DataType.FLOAT, int32: onnx.TensorProto.DataType.INT32, int64: onnx.TensorProto.DataType.INT64 };

export function node(opType, input, output, attribute = []) {
  return onnx.NodeProto.create({ opType, input, output, attribute });
}

export function intAttribute(name, value) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: value });
}

export function initializer(name, data, dims) {
  const type = data instanceof Float32Array ? 'float32' : data instanceof Int32Array ? 'int32' : 'int64';
  const rawData = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);  // little-endian, as ONNX stores it
  return onnx.TensorProto.create({ name, dataType: ELEMENT[type], dims, rawData });
}

function valueInfo(name, type, dims) {
  return onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: ELEMENT[type], shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
}

// inputs / outputs: [[name, type, dims]]. Returns the serialised model.
export function model({ nodes, inputs, outputs, initializers = [] }) {
  const graph = onnx.GraphProto.create({
    name: 'posembed-bench', node: nodes, initializer: initializers,
    input: inputs.map(([name, type, dims]) => valueInfo(name, type, dims)),
    output: outputs.map(([name, type, dims]) => valueInfo(name, type, dims)),
  });
  return onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph })).finish();
}
