//===- Printer.cpp - The canonical text form ------------------------------===//
//
// Canonical form (docs/ir-format.md section 4):
//   - every call, tuple, projection, `if`, `fn` literal (and a `let` in
//     operand position) used as an operand is bound to its own `%N = ...;`
//     line, numbered from 0 per def in post-order, operands left to right;
//   - variables, globals, operators and constants print inline; a tensor
//     constant as `meta[relay.Constant][i]`, numbered in print order, its
//     value in the metadata's "relay.Constant" table (base64 `data`, or the
//     `npy` file it was read from);
//   - a scope's result expression is printed bare on its last line;
//   - `let %x = v; body` prints as a `let` line followed by the body;
//   - an expression that came from a framework node (its Loc names one,
//     hx/Support/SourceNames.h) ends its line with the node's comment,
//     `// onnx:Conv /conv/Conv`; consecutive bindings of one node share a
//     line, so an imported node reads as one line, as hx-import-onnx has
//     always written it. The parser puts the comment's node back on every
//     expression of the line, so the text round-trips.
//
// Binding emission is iterative (an explicit stack), so a million-deep DAG
// prints without recursion. The printer recurses only into nested scopes (if
// branches, fn literals), whose depth the parser bounds.
//
//===----------------------------------------------------------------------===//
#include "hx/IR/Printer.h"
#include "hx/IR/OpDef.h"
#include "hx/IR/Walk.h"
#include "hx/Support/SourceNames.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace hx;
using namespace llvm;

static void printFloat(raw_ostream &os, double v, DType t) {
  char buf[64];
  if (std::isinf(v) || std::isnan(v)) {
    os << (std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
  } else if (t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16) {
    float f = static_cast<float>(v);
    for (int prec = 1; prec <= 9; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, f);
      if (std::strtof(buf, nullptr) == f)
        break;
    }
    os << buf;
  } else {
    for (int prec = 1; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, v);
      if (std::strtod(buf, nullptr) == v)
        break;
    }
    os << buf;
  }
  os << (t == DType::Float64    ? "f64"
         : t == DType::Float16  ? "f16"
         : t == DType::BFloat16 ? "bf16"
                                : "f");
}

static StringRef intSuffix(DType t) {
  switch (t) {
  case DType::Int8:
    return "i8";
  case DType::Int16:
    return "i16";
  case DType::Int64:
    return "i64";
  case DType::UInt8:
    return "u8";
  case DType::UInt16:
    return "u16";
  case DType::UInt32:
    return "u32";
  case DType::UInt64:
    return "u64";
  default:
    return "";
  }
}

// uint64 values are kept as their bit pattern in an int64.
static void printInt(raw_ostream &os, int64_t v, DType t) {
  if (t == DType::UInt64)
    os << static_cast<uint64_t>(v);
  else
    os << v;
  os << intSuffix(t);
}

void hx::printConstant(raw_ostream &os, const Constant &c) {
  if (c.isTensor())
    os << "meta[relay.Constant][?]";
  else if (c.dtype == DType::Bool)
    os << (c.intValue ? "True" : "False");
  else if (isFloat(c.dtype))
    printFloat(os, c.floatValue, c.dtype);
  else
    printInt(os, c.intValue, c.dtype);
}

static void printString(raw_ostream &os, StringRef s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      os << "\\\"";
      break;
    case '\\':
      os << "\\\\";
      break;
    case '\n':
      os << "\\n";
      break;
    case '\t':
      os << "\\t";
      break;
    case '\r':
      os << "\\r";
      break;
    default:
      if (c < 0x20)
        os << format("\\u%04x", c);
      else
        os << c;
    }
  }
  os << '"';
}

void hx::printAttrValue(raw_ostream &os, const AttrValue &v) {
  switch (v.kind) {
  case AttrValue::Kind::None:
    os << "None";
    return;
  case AttrValue::Kind::Bool:
    os << (v.boolValue ? "True" : "False");
    return;
  case AttrValue::Kind::Int:
    printInt(os, v.intValue, v.numType);
    return;
  case AttrValue::Kind::Float:
    printFloat(os, v.floatValue, v.numType);
    return;
  case AttrValue::Kind::String:
    printString(os, v.str);
    return;
  case AttrValue::Kind::Ident:
    os << v.str;
    return;
  case AttrValue::Kind::Device:
    os << "meta[VirtualDevice][" << v.intValue << "]";
    return;
  case AttrValue::Kind::Meta:
    os << "meta[" << v.str << "][" << v.intValue << "]";
    return;
  case AttrValue::Kind::List:
    os << (v.isTuple ? "(" : "[");
    for (size_t i = 0; i < v.list.size(); ++i) {
      if (i)
        os << ", ";
      printAttrValue(os, v.list[i]);
    }
    if (v.isTuple && v.list.size() == 1)
      os << ",";
    os << (v.isTuple ? ")" : "]");
    return;
  }
}

namespace {

/// Tensor constants in the order the printer first meets them.
struct ConstantTable {
  std::vector<const TensorData *> values;
  DenseMap<const TensorData *, unsigned> index;
  unsigned indexOf(const std::shared_ptr<const TensorData> &t) {
    auto [it, inserted] = index.try_emplace(t.get(), values.size());
    if (inserted)
      values.push_back(t.get());
    return it->second;
  }
};

/// Only non-default attributes print.
bool isDefaultAttr(const OpDef &def, const Attr &a) {
  const AttrSpec *spec = def.findAttr(a.name);
  return spec && !spec->required && spec->defaultValue == a.value;
}

class FunctionPrinter {
public:
  FunctionPrinter(raw_ostream &os, const PrintOptions &opts, ConstantTable &constants)
      : os(os), opts(opts), constants(constants) {}

  void printDef(StringRef name, const Function &fn) {
    analyzeScopes(fn);
    os << "def @" << name;
    printSignature(fn);
    os << " {\n";
    printScope(&fn, fn.body.get(), 1);
    os << "}\n";
  }

private:
  // ---- Scopes ---------------------------------------------------------------
  // Each if branch, fn literal body and parenthesised let opens a scope. A
  // node is bound in the innermost scope that encloses all its uses, so a
  // value shared by both branches of an if is bound once, before the if. A
  // construct that opens scopes first binds (in the current scope) the outer
  // nodes its scopes use: `outerOps`.
  struct ScopeInfo {
    int parent;
    unsigned depth;
    const Expr *opener;
  };

  int newScope(int parent, const Expr *opener) {
    scopes.push_back({parent, scopes[parent].depth + 1, opener});
    return static_cast<int>(scopes.size() - 1);
  }

  int lca(int a, int b) const {
    while (scopes[a].depth > scopes[b].depth)
      a = scopes[a].parent;
    while (scopes[b].depth > scopes[a].depth)
      b = scopes[b].parent;
    while (a != b) {
      a = scopes[a].parent;
      b = scopes[b].parent;
    }
    return a;
  }

  /// The scope in which consumer `e` uses its operand `i`.
  int useScope(const Expr *e, unsigned i) const {
    int s = scopeOf.lookup(e);
    auto it = childScopes.find(e);
    if (it == childScopes.end())
      return s;
    switch (e->getKind()) {
    case ExprKind::If:
      return i == 0 ? s : it->second[i - 1];
    case ExprKind::Function:
    case ExprKind::Let:
      return it->second[0];
    default:
      return s;
    }
  }

  /// Sinking a node into the scope of its uses nests a flat chain
  /// (`%k = fn () { %k-1 }`, `%k = if (%c) { f(%k-1) } else { ... }`) one
  /// level per link. Past this depth, a construct that can be bound in the
  /// def's scope is, so printing never nests deeper than the program does.
  static constexpr unsigned kMaxSinkDepth = 16;

  /// The scope-opening constructs (fn literals, ifs, parenthesised lets)
  /// that use no variable bound below the def's own level, so that they may
  /// be bound in the def's scope. Free variables are tracked up to a small
  /// number per node (more: not hoistable, which is always correct).
  static DenseSet<const Expr *> hoistableConstructs(const Function &fn, ArrayRef<Expr *> order) {
    constexpr size_t kMaxTracked = 8;
    DenseSet<const Var *> defLevel;
    for (const Ref<Var> &p : fn.params)
      defLevel.insert(p.get());
    for (const Ref<Var> &v : fn.freeVars)
      defLevel.insert(v.get());
    for (const Expr *e = fn.body.get(); auto *l = dyn_cast<Let>(e); e = l->body.get())
      defLevel.insert(l->var.get());
    // Free variables (below def level) of each node; absent: none.
    DenseMap<const Expr *, SmallVector<const Var *, 2>> fv;
    DenseSet<const Expr *> many, hoistable;
    SmallVector<Expr *, 8> ops;
    SmallVector<const Var *, 8> acc;
    for (Expr *e : order) {
      acc.clear();
      bool tooMany = false;
      ops.clear();
      getOperands(e, ops);
      for (Expr *op : ops) {
        if (many.count(op))
          tooMany = true;
        else if (auto it = fv.find(op); it != fv.end())
          acc.append(it->second.begin(), it->second.end());
      }
      if (auto *v = dyn_cast<Var>(e); v && !defLevel.count(v))
        acc.push_back(v);
      auto bound = [&](const Var *v) { return llvm::is_contained(acc, v); };
      if (auto *f = dyn_cast<Function>(e))
        for (const Ref<Var> &p : f->params)
          llvm::erase(acc, p.get());
      if (auto *l = dyn_cast<Let>(e); l && bound(l->var.get()))
        llvm::erase(acc, l->var.get());
      llvm::sort(acc);
      acc.erase(std::unique(acc.begin(), acc.end()), acc.end());
      if (tooMany || acc.size() > kMaxTracked) {
        many.insert(e);
        continue;
      }
      if (!acc.empty()) {
        fv[e] = SmallVector<const Var *, 2>(acc.begin(), acc.end());
        continue;
      }
      if (isa<If>(e) || isa<Function>(e) || isa<Let>(e))
        hoistable.insert(e);
    }
    return hoistable;
  }

  void analyzeScopes(const Function &fn) {
    std::vector<Expr *> order;
    walkPostOrder(fn.body.get(), [&](Expr *e) { order.push_back(e); });
    scopes.assign(1, {0, 0, nullptr});
    scopeOf.clear();
    childScopes.clear();
    chainLets.clear();
    outerOps.clear();
    uses.clear();
    scopeOf[fn.body.get()] = 0;
    if (isa<Let>(fn.body.get()))
      chainLets.insert(fn.body.get());
    SmallVector<Expr *, 8> ops;
    DenseSet<const Expr *> hoistable = hoistableConstructs(fn, order);
    // Consumers before operands.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Expr *e = *it;
      auto found = scopeOf.find(e);
      if (found == scopeOf.end())
        continue;
      int s = found->second;
      // A let used more than once cannot be the tail of one scope: it is
      // bound like any other shared node.
      if (isa<Let>(e) && uses.lookup(e) > 1)
        chainLets.erase(e);
      if (isa<If>(e))
        childScopes[e] = {newScope(s, e), newScope(s, e)};
      else if (isa<Function>(e) || (isa<Let>(e) && !chainLets.count(e)))
        childScopes[e] = {newScope(s, e)};
      ops.clear();
      getOperands(e, ops);
      for (unsigned i = 0; i < ops.size(); ++i) {
        Expr *op = ops[i];
        if (op->isAtomic())
          continue;
        ++uses[op];
        if (isa<Let>(op) && ((isa<Let>(e) && i == 1) || (isa<If>(e) && i > 0) || isa<Function>(e)))
          chainLets.insert(op);
        int us = useScope(e, i);
        if (scopes[us].depth > kMaxSinkDepth && hoistable.count(op) && !chainLets.count(op))
          us = 0;
        auto [slot, inserted] = scopeOf.try_emplace(op, us);
        if (!inserted)
          slot->second = lca(slot->second, us);
      }
    }
    // Which outer nodes each scope-opening construct needs bound first.
    DenseSet<std::pair<const Expr *, const Expr *>> seen;
    for (Expr *e : order) {
      if (!scopeOf.count(e))
        continue;
      ops.clear();
      getOperands(e, ops);
      for (unsigned i = 0; i < ops.size(); ++i) {
        Expr *op = ops[i];
        if (op->isAtomic() || chainLets.count(op))
          continue;
        int us = useScope(e, i), home = scopeOf.lookup(op);
        if (us == home)
          continue;
        int c = us;
        while (scopes[c].parent != home && c != 0)
          c = scopes[c].parent;
        const Expr *opener = scopes[c].opener;
        if (opener && seen.insert({opener, op}).second)
          outerOps[opener].push_back(op);
      }
    }
  }

  void indent(unsigned level) { os.indent(level * 2); }

  // ---- Lines ----------------------------------------------------------------
  // A line stays open after a binding, so that the next binding of the same
  // framework node can join it; whatever ends it writes the node's comment.

  /// Ends the open line with its node's comment, if it has a node.
  void endLine() {
    if (!lineOpen)
      return;
    if (lineNode) {
      os << " ";
      lineNode->printComment(os);
    }
    os << "\n";
    lineOpen = false;
    lineNode = nullptr;
  }

  /// Starts the text of an expression of `node` at `level`: on the open line
  /// when `join` and that line is of the same node, else on a new line.
  void startLine(unsigned level, const SourceNode *node, bool join) {
    if (lineOpen && join && node && sameSourceNode(node, lineNode)) {
      os << " ";
      return;
    }
    endLine();
    indent(level);
    lineOpen = true;
    lineNode = node;
  }

  /// After the closing bracket of a construct printed over several lines:
  /// the rest of its line names no node.
  void reopenLine() {
    lineOpen = true;
    lineNode = nullptr;
  }

  void printSignature(const Function &fn) {
    os << "(";
    bool first = true;
    auto sep = [&] {
      if (!first)
        os << ", ";
      first = false;
    };
    for (const Ref<Var> &p : fn.params) {
      sep();
      os << "%" << p->name;
      if (p->device != kNoDevice)
        os << " {virtual_device=meta[VirtualDevice][" << p->device << "]}";
      if (p->annotation) {
        os << ": ";
        printType(os, p->annotation.get());
      }
    }
    for (const Attr &a : fn.attrs) {
      sep();
      os << a.name << "=";
      printAttrValue(os, a.value);
    }
    if (fn.resultDevice != kNoDevice) {
      sep();
      os << "virtual_device=meta[VirtualDevice][" << fn.resultDevice << "]";
    }
    os << ")";
    if (fn.retType) {
      os << " -> ";
      printType(os, fn.retType.get());
    }
  }

  void typeComment(const Expr *e) {
    if (opts.printTypes && e->checkedType) {
      os << " /* ty=";
      printType(os, e->checkedType.get());
      os << " */";
    }
  }

  // Operands that must be bound before `e`'s own text can be printed.
  void bindingOperands(const Expr *e, SmallVectorImpl<Expr *> &out) const {
    auto outer = outerOps.find(e);
    if (outer != outerOps.end())
      out.append(outer->second.begin(), outer->second.end());
    switch (e->getKind()) {
    case ExprKind::Call:
    case ExprKind::Tuple:
    case ExprKind::TupleGetItem:
      getOperands(e, out);
      return;
    case ExprKind::If:
      out.push_back(cast<If>(e)->cond.get());
      return;
    default:
      return; // fn and let bodies are scopes of their own
    }
  }

  bool isBound(const Expr *e) const { return bound.count(e); }

  /// Binds, in post-order, every unbound non-atomic operand of `e`.
  void bindOperandsOf(const Expr *e, unsigned level) {
    SmallVector<Expr *, 8> ops;
    bindingOperands(e, ops);
    for (Expr *op : ops)
      ensureBound(op, level);
  }

  void ensureBound(const Expr *root, unsigned level) {
    if (root->isAtomic() || isBound(root))
      return;
    SmallVector<std::pair<const Expr *, bool>, 32> stack{{root, false}};
    SmallVector<Expr *, 8> ops;
    while (!stack.empty()) {
      auto &[e, expanded] = stack.back();
      if (e->isAtomic() || isBound(e)) {
        stack.pop_back();
        continue;
      }
      if (!expanded) {
        expanded = true;
        ops.clear();
        bindingOperands(e, ops);
        for (auto it = ops.rbegin(); it != ops.rend(); ++it)
          if (!(*it)->isAtomic() && !isBound(*it))
            stack.push_back({*it, false});
        continue;
      }
      const Expr *node = e;
      stack.pop_back();
      unsigned n = counter++;
      bool oneLine = isa<Call>(node) || isa<Tuple>(node) || isa<TupleGetItem>(node);
      startLine(level, node->loc.getNode(), /*join=*/oneLine);
      os << "%" << n << " = ";
      printDefinition(node, level);
      typeComment(node);
      os << ";";
      if (!oneLine)
        endLine();
      bound[node] = n;
      scopeStack.back().push_back(node);
    }
  }

  void printRef(const Expr *e) {
    switch (e->getKind()) {
    case ExprKind::Var:
      os << "%" << cast<Var>(e)->name;
      return;
    case ExprKind::GlobalVar:
      os << "@" << cast<GlobalVar>(e)->name;
      return;
    case ExprKind::Op:
      os << cast<Op>(e)->name;
      return;
    case ExprKind::Constant:
      if (auto *c = cast<Constant>(e); c->isTensor())
        os << "meta[relay.Constant][" << constants.indexOf(c->tensor) << "]";
      else
        printConstant(os, *c);
      return;
    default:
      break;
    }
    auto it = bound.find(e);
    assert(it != bound.end() && "operand printed before it was bound");
    os << "%" << it->second;
  }

  /// `e` as a reference if it has a name, else its definition.
  void printRefOrDefinition(const Expr *e, unsigned level) {
    if (e->isAtomic() || isBound(e))
      printRef(e);
    else
      printDefinition(e, level);
  }

  void printDefinition(const Expr *e, unsigned level) {
    switch (e->getKind()) {
    case ExprKind::Call: {
      auto *c = cast<Call>(e);
      printRef(c->callee.get());
      os << "(";
      bool first = true;
      for (const ExprRef &a : c->args) {
        if (!first)
          os << ", ";
        first = false;
        printRef(a.get());
      }
      printCallAttrs(os, *c, first);
      os << ")";
      return;
    }
    case ExprKind::Tuple: {
      auto *t = cast<Tuple>(e);
      os << "(";
      for (size_t i = 0; i < t->fields.size(); ++i) {
        if (i)
          os << ", ";
        printRef(t->fields[i].get());
      }
      if (t->fields.size() == 1)
        os << ",";
      os << ")";
      return;
    }
    case ExprKind::TupleGetItem: {
      auto *g = cast<TupleGetItem>(e);
      printRef(g->tuple.get());
      os << "." << g->index;
      return;
    }
    case ExprKind::If: {
      auto *i = cast<If>(e);
      os << "if (";
      printRef(i->cond.get());
      os << ") {";
      endLine();
      printScope(nullptr, i->thenBranch.get(), level + 1);
      indent(level);
      os << "} else {\n";
      printScope(nullptr, i->elseBranch.get(), level + 1);
      indent(level);
      os << "}";
      reopenLine();
      return;
    }
    case ExprKind::Function: {
      auto *f = cast<Function>(e);
      os << "fn ";
      printSignature(*f);
      os << " {";
      endLine();
      printScope(f, f->body.get(), level + 1);
      indent(level);
      os << "}";
      reopenLine();
      return;
    }
    case ExprKind::Let:
      os << "(";
      endLine();
      printScope(nullptr, e, level + 1);
      indent(level);
      os << ")";
      reopenLine();
      return;
    default:
      printRef(e);
      return;
    }
  }

  /// Prints a scope: free vars of `fn` (if any), let lines, bindings, and the
  /// result expression.
  void printScope(const Function *fn, const Expr *body, unsigned level) {
    scopeStack.emplace_back();
    endLine();
    if (fn) {
      for (const Ref<Var> &v : fn->freeVars) {
        indent(level);
        os << "free_var %" << v->name << ": ";
        printType(os, v->annotation.get());
        os << ";\n";
      }
    }
    const Expr *cur = body;
    while (auto *l = dyn_cast<Let>(cur)) {
      if (isBound(l)) // shared, so bound already
        break;
      const Expr *value = l->value.get();
      // A value used again later gets its own binding first: written out in
      // the let line it would have no name for the other uses.
      if (!value->isAtomic() && !isBound(value) && uses.lookup(value) > 1)
        ensureBound(value, level);
      else if (!value->isAtomic() && !isBound(value))
        bindOperandsOf(value, level);
      bool inlineValue = !value->isAtomic() && !isBound(value);
      startLine(level, (inlineValue ? value->loc : l->loc).getNode(), /*join=*/false);
      os << "let %" << l->var->name;
      if (l->var->annotation) {
        os << ": ";
        printType(os, l->var->annotation.get());
      }
      os << " = ";
      printRefOrDefinition(value, level);
      typeComment(value);
      os << ";";
      endLine();
      cur = l->body.get();
    }
    bool inlineResult = !cur->isAtomic() && !isBound(cur);
    if (inlineResult)
      bindOperandsOf(cur, level);
    startLine(level, inlineResult ? cur->loc.getNode() : nullptr, /*join=*/false);
    printRefOrDefinition(cur, level);
    typeComment(cur);
    endLine();
    for (const Expr *e : scopeStack.back())
      bound.erase(e);
    scopeStack.pop_back();
  }

  raw_ostream &os;
  const PrintOptions &opts;
  ConstantTable &constants;
  DenseMap<const Expr *, unsigned> bound;
  std::vector<std::vector<const Expr *>> scopeStack;
  std::vector<ScopeInfo> scopes;
  DenseMap<const Expr *, int> scopeOf;
  DenseMap<const Expr *, SmallVector<int, 2>> childScopes;
  DenseSet<const Expr *> chainLets;
  DenseMap<const Expr *, SmallVector<Expr *, 2>> outerOps;
  /// How many operand slots of the def refer to each non-atomic node.
  DenseMap<const Expr *, unsigned> uses;
  unsigned counter = 0;
  /// The line being written is not ended yet; the node it is of, if any.
  bool lineOpen = false;
  const SourceNode *lineNode = nullptr;
};

void printConstants(raw_ostream &os, const ConstantTable &constants, const PrintOptions &opts) {
  os << "  \"relay.Constant\": [\n";
  for (size_t i = 0; i < constants.values.size(); ++i) {
    const TensorData &t = *constants.values[i];
    os << "    {\"dtype\": \"" << dtypeName(t.dtype) << "\", \"shape\": [";
    for (size_t d = 0; d < t.shape.size(); ++d)
      os << (d ? ", " : "") << t.shape[d];
    os << "], ";
    if (opts.constantName) {
      os << "\"npy\": ";
      printString(os, opts.constantName(t, unsigned(i)));
    } else if (!t.npyPath.empty()) {
      os << "\"npy\": ";
      printString(os, t.npyPath);
    } else {
      os << "\"data\": \"" << encodeBase64(t.bytes) << "\"";
    }
    os << "}" << (i + 1 < constants.values.size() ? ",\n" : "\n");
  }
  os << "  ]";
}

void printMetadata(raw_ostream &os, const Module &m, const ConstantTable &constants,
                   const PrintOptions &opts) {
  bool any = !m.devices.empty() || m.fallbackDeviceType || !m.passConfigExtra.empty() ||
             !m.extraMetadata.empty() || !constants.values.empty();
  if (!any)
    return;
  os << "#[metadata]\n{\n";
  bool first = true;
  auto sep = [&] {
    if (!first)
      os << ",\n";
    first = false;
  };
  if (!m.devices.empty()) {
    sep();
    os << "  \"VirtualDevice\": [\n";
    for (size_t i = 0; i < m.devices.size(); ++i) {
      const VirtualDevice &d = m.devices[i];
      os << "    {\"device_type\": \"" << deviceTypeName(d.deviceType)
         << "\", \"virtual_device_id\": " << d.virtualDeviceId << ", \"target\": ";
      printString(os, d.target.str());
      if (!d.memoryScope.empty()) {
        os << ", \"memory_scope\": ";
        printString(os, d.memoryScope);
      }
      os << "}" << (i + 1 < m.devices.size() ? ",\n" : "\n");
    }
    os << "  ]";
  }
  if (m.fallbackDeviceType || !m.passConfigExtra.empty()) {
    sep();
    os << "  \"PassConfig\": {";
    bool f = true;
    if (m.fallbackDeviceType) {
      os << "\"relay.fallback_device_type\": \"" << deviceTypeName(*m.fallbackDeviceType) << "\"";
      f = false;
    }
    for (auto &[k, v] : m.passConfigExtra) {
      if (!f)
        os << ", ";
      f = false;
      printString(os, k);
      os << ": " << v;
    }
    os << "}";
  }
  if (!constants.values.empty()) {
    sep();
    printConstants(os, constants, opts);
  }
  for (auto &[k, v] : m.extraMetadata) {
    sep();
    os << "  ";
    printString(os, k);
    os << ": " << v;
  }
  os << "\n}\n";
}

} // namespace

void hx::printModule(raw_ostream &os, const Module &m, const PrintOptions &opts) {
  ConstantTable constants;
  os << "#[version = \"0.0.5\"]\n";
  if (!opts.headerComment.empty()) {
    std::string line = opts.headerComment;
    std::replace(line.begin(), line.end(), '\n', ' ');
    os << "// " << line << "\n";
  }
  for (size_t i = 0; i < m.defs.size(); ++i) {
    FunctionPrinter(os, opts, constants).printDef(m.defs[i].global->name, *m.defs[i].fn);
  }
  printMetadata(os, m, constants, opts);
}

void hx::printCallAttrs(raw_ostream &os, const Call &c, bool &first) {
  const OpDef *def = c.getOp() ? c.getOp()->def : nullptr;
  for (const Attr &a : c.attrs) {
    if (def && isDefaultAttr(*def, a))
      continue;
    if (!first)
      os << ", ";
    first = false;
    os << a.name << "=";
    printAttrValue(os, a.value);
  }
}
