// The subset of onnx.proto (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto) that
// the writer needs, as a protobufjs JSON descriptor, so nothing is read from disk at run
// time. Field numbers are those of onnx.proto and must never change. Fields we never
// write are left out; readers skip nothing they need because we only write.

import protobuf from 'protobufjs';

const descriptor = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            opset_import: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
            producer_name: { type: 'string', id: 2 },
            producer_version: { type: 'string', id: 3 },
            domain: { type: 'string', id: 4 },
            model_version: { type: 'int64', id: 5 },
            doc_string: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
            metadata_props: { rule: 'repeated', type: 'StringStringEntryProto', id: 14 },
          },
        },
        StringStringEntryProto: {
          fields: {
            key: { type: 'string', id: 1 },
            value: { type: 'string', id: 2 },
          },
        },
        OperatorSetIdProto: {
          fields: {
            domain: { type: 'string', id: 1 },
            version: { type: 'int64', id: 2 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            doc_string: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
            value_info: { rule: 'repeated', type: 'ValueInfoProto', id: 13 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            doc_string: { type: 'string', id: 6 },
            domain: { type: 'string', id: 7 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            floats: { rule: 'repeated', type: 'float', id: 7 },
            ints: { rule: 'repeated', type: 'int64', id: 8 },
            strings: { rule: 'repeated', type: 'bytes', id: 9 },
            doc_string: { type: 'string', id: 13 },
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            data_type: { type: 'int32', id: 2 },
            name: { type: 'string', id: 8 },
            raw_data: { type: 'bytes', id: 9 },
            doc_string: { type: 'string', id: 12 },
            external_data: { rule: 'repeated', type: 'StringStringEntryProto', id: 13 },
            // TensorProto.DataLocation: 0 DEFAULT (raw_data), 1 EXTERNAL (external_data says where).
            data_location: { type: 'int32', id: 14 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
            doc_string: { type: 'string', id: 3 },
          },
        },
        TypeProto: {
          oneofs: { value: { oneof: ['tensor_type'] } },
          fields: {
            tensor_type: { type: 'Tensor', id: 1 },
            denotation: { type: 'string', id: 6 },
          },
          nested: {
            Tensor: {
              fields: {
                elem_type: { type: 'int32', id: 1 },
                shape: { type: 'TensorShapeProto', id: 2 },
              },
            },
          },
        },
        TensorShapeProto: {
          fields: {
            dim: { rule: 'repeated', type: 'Dimension', id: 1 },
          },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dim_value', 'dim_param'] } },
              fields: {
                dim_value: { type: 'int64', id: 1 },
                dim_param: { type: 'string', id: 2 },
                denotation: { type: 'string', id: 3 },
              },
            },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor);

/** protobufjs message types, looked up once. */
export const ModelProto = root.lookupType('onnx.ModelProto');
export const TensorProto = root.lookupType('onnx.TensorProto');

/** AttributeProto.AttributeType values. */
export const AttributeType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 } as const;

/** TensorProto.DataType values for our dtypes. */
export const DataType = { float32: 1, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 } as const;

/** ONNX IR version 8 is the first that opset 18 requires; onnxruntime 1.30 reads it. */
export const IR_VERSION = 8;
export const OPSET = 18;
