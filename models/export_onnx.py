"""LightGBM -> ONNX with one uniform output.

Every exported graph takes `features` float32 [N, LENGTH] and returns `score` float32 [N] in the
units of the model card: P(class 1) for classifiers, the property for regressors (log10-trained
models end in 10**x), so the serving side needs no per-model post-processing.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnxmltools
from onnx import TensorProto, helper
from onnxmltools.convert.common.data_types import FloatTensorType

OPSET = 15


def to_onnx(model, n_features: int, binary: bool, log10: bool, name: str) -> onnx.ModelProto:
    """Converts a fitted LGBMClassifier/LGBMRegressor and appends the `score` head."""
    raw = onnxmltools.convert_lightgbm(
        model, name=name, initial_types=[("features", FloatTensorType([None, n_features]))],
        target_opset=OPSET, zipmap=False,
    )
    g = raw.graph
    if binary:
        probs = g.output[1].name  # outputs are (label, probabilities[N,2])
        g.initializer.append(helper.make_tensor("col1", TensorProto.INT64, [], [1]))
        g.node.append(helper.make_node("Gather", [probs, "col1"], ["score"], axis=1, name="take_p1"))
    else:
        g.initializer.append(helper.make_tensor("flat", TensorProto.INT64, [1], [-1]))
        src = g.output[0].name
        if log10:
            g.initializer.append(helper.make_tensor("ten", TensorProto.FLOAT, [], [10.0]))
            g.node.append(helper.make_node("Pow", ["ten", src], ["pow10"], name="exp10"))
            src = "pow10"
        g.node.append(helper.make_node("Reshape", [src, "flat"], ["score"], name="flatten"))
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("score", TensorProto.FLOAT, [None]))
    onnx.checker.check_model(raw)
    return raw


def native_score(model, x: np.ndarray, binary: bool, log10: bool) -> np.ndarray:
    """What the ONNX `score` output must equal, from the native model."""
    if binary:
        return model.predict_proba(x)[:, 1]
    y = model.predict(x)
    return np.power(10.0, y) if log10 else y
