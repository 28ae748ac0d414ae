//===- ImportMain.h - hx-import-onnx's main -----------------------*- C++ -*-===//
#ifndef HX_TOOLS_IMPORTMAIN_H
#define HX_TOOLS_IMPORTMAIN_H

namespace hx {

/// hx-import-onnx: an ONNX model to an hx text module and its `.npy`
/// weights. Exit 0, or 1 with a message naming the file (nothing written).
int importMain(int argc, char **argv);

} // namespace hx

#endif
