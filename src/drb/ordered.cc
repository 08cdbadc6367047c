#include "drb/ordered.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace druba::drb {
namespace {

// What an expression's value is to the threads: a thread id, a negative number ("no thread",
// below every id), another number, or a truth value.
enum class Value : std::uint8_t { kId, kNone, kNumber, kBool };

bool IsArithmetic(Expr::Op op) {
  return op == Expr::Op::kAdd || op == Expr::Op::kSub || op == Expr::Op::kMul ||
         op == Expr::Op::kDiv || op == Expr::Op::kMod || op == Expr::Op::kNeg;
}

bool IsComparison(Expr::Op op) {
  return op == Expr::Op::kEq || op == Expr::Op::kNe || op == Expr::Op::kLt || op == Expr::Op::kLe ||
         op == Expr::Op::kGt || op == Expr::Op::kGe;
}

class Checker {
 public:
  explicit Checker(const Program& program)
      : program_(program),
        shared_ids_(program.shared.size(), false),
        local_ids_(program.locals.size(), false) {}

  const std::vector<bool>& shared_ids() const { return shared_ids_; }
  const std::vector<bool>& local_ids() const { return local_ids_; }

  std::optional<OrderedBreach> Run() {
    if (program_.templates.size() > 1) {
      return OrderedBreach{program_.templates[1].where, "a second thread template"};
    }
    // The variables that hold ids: those an assignment gives one, until no more are found.
    for (bool grew = true; grew;) {
      inferring_ = true;
      grew = false;
      for (const Statement& s : program_.statements) grew = Instrs(s.body) || grew;
    }
    inferring_ = false;
    for (const Statement& s : program_.statements) Instrs(s.body);
    Initial(program_.shared, shared_ids_);
    Initial(program_.locals, local_ids_);
    return breach_;
  }

 private:
  void Breach(const SourceLocation& where, const std::string& what) {
    if (!inferring_ && !breach_) breach_ = OrderedBreach{where, what};
  }

  static std::string NameOf(const Variable& v) { return v.name.substr(0, v.name.find('[')); }

  // Whether the variable (a fixed-size array: any of its `size` elements) holds ids.
  bool HoldsIds(bool local, std::uint32_t var, std::uint32_t size) const {
    const std::vector<bool>& ids = local ? local_ids_ : shared_ids_;
    for (std::uint32_t v = var; v < var + std::max<std::uint32_t>(size, 1) && v < ids.size(); ++v) {
      if (ids[v]) return true;
    }
    return false;
  }
  // Marks it (every element of a fixed-size array); true when that is news.
  bool MarkIds(bool local, std::uint32_t var, std::uint32_t size) {
    std::vector<bool>& ids = local ? local_ids_ : shared_ids_;
    bool news = false;
    for (std::uint32_t v = var; v < var + std::max<std::uint32_t>(size, 1) && v < ids.size(); ++v) {
      news = news || !ids[v];
      ids[v] = true;
    }
    return news;
  }

  // An id-holding variable starts with no thread (a negative number): thread 0 is no thread in
  // particular once threads are renamed.
  void Initial(const std::vector<Variable>& vars, const std::vector<bool>& ids) {
    for (std::size_t v = 0; v < vars.size(); ++v) {
      if (ids[v] && vars[v].init >= 0) {
        Breach(vars[v].where, "`" + NameOf(vars[v]) + "` holds thread ids, and its initial value " +
                                  vars[v].init.str() + " names a thread (use a negative number " +
                                  "for no thread)");
      }
    }
  }

  // The index of a thread's entry (`pc[e]`, `a[e]` of a per-thread array) must be an id.
  void ThreadIndex(const Expr& index) {
    const Value v = Of(index);
    if (v == Value::kId) return;
    Breach(index.where, index.kind == Expr::Kind::kNumber ? "a fixed thread index"
                                                          : "a number as a thread index");
  }
  // The index of a fixed-size array must not be one.
  void ArrayIndex(const Expr& index) {
    if (Of(index) == Value::kId) Breach(index.where, "a thread id as a fixed-size array's index");
  }

  Value Plain(const Expr& e, bool local, std::uint32_t size) const {
    if (e.sort == Sort::kBool) return Value::kBool;
    return HoldsIds(local, e.var, size) ? Value::kId : Value::kNumber;
  }

  Value Of(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kNumber:
        return e.value < 0 ? Value::kNone : Value::kNumber;
      case Expr::Kind::kBool:
        return Value::kBool;
      case Expr::Kind::kHavoc:  // any number, which may name a thread: so does a literal
        return e.sort == Sort::kBool ? Value::kBool : Value::kNumber;
      case Expr::Kind::kSelf:
      case Expr::Kind::kBound:
        return Value::kId;
      case Expr::Kind::kLabel:
        return Value::kNumber;
      case Expr::Kind::kPc:
        if (!e.args.empty()) ThreadIndex(*e.args[0]);
        return Value::kNumber;
      case Expr::Kind::kShared:
        return Plain(e, false, 1);
      case Expr::Kind::kLocal:
        if (!e.args.empty()) ThreadIndex(*e.args[0]);
        return Plain(e, true, 1);
      case Expr::Kind::kPair:  // both indices name threads; an entry holds no id
        ThreadIndex(*e.args[0]);
        ThreadIndex(*e.args[1]);
        return e.sort == Sort::kBool ? Value::kBool : Value::kNumber;
      case Expr::Kind::kSharedElement:
      case Expr::Kind::kLocalElement:
        ArrayIndex(*e.args[0]);
        return Plain(e, e.kind == Expr::Kind::kLocalElement, static_cast<std::uint32_t>(e.value));
      case Expr::Kind::kForall:
      case Expr::Kind::kExists:
        Of(*e.args[0]);
        return Value::kBool;
      case Expr::Kind::kCount:
        Of(*e.args[0]);
        return Value::kNumber;
      case Expr::Kind::kUnary:
      case Expr::Kind::kBinary:
        return Operation(e);
      case Expr::Kind::kIte:
        Of(*e.args[0]);
        return Join(e, Of(*e.args[1]), Of(*e.args[2]));
    }
    return Value::kNumber;
  }

  // The value of a conditional whose branches give a and b.
  Value Join(const Expr& e, Value a, Value b) {
    if (a == b) return a;
    if (a == Value::kId || b == Value::kId) {
      if (a == Value::kNumber || b == Value::kNumber) {
        Breach(e.where, "a conditional that gives a thread id or a number");
      }
      return Value::kId;
    }
    return a == Value::kBool ? Value::kBool : Value::kNumber;
  }

  Value Operation(const Expr& e) {
    std::vector<Value> args;
    for (const ExprPtr& a : e.args) args.push_back(Of(*a));
    const bool id = std::find(args.begin(), args.end(), Value::kId) != args.end();
    if (IsArithmetic(e.op)) {
      if (id) Breach(e.where, "arithmetic on a thread id");
      return Value::kNumber;
    }
    // An id is compared with ids and with "no thread" only.
    if (IsComparison(e.op) && id &&
        std::find(args.begin(), args.end(), Value::kNumber) != args.end()) {
      Breach(e.where, "a thread id compared with a number");
    }
    return Value::kBool;
  }

  // Checks (or, while inferring, marks the id-holding variables of) a body; true when a variable
  // was found to hold ids.
  bool Instrs(const std::vector<Instr>& body) {
    bool grew = false;
    for (const Instr& instr : body) {
      if (instr.kind == Instr::Kind::kAssignEach) {
        Breach(instr.where,
               "an update of every thread's entry in one step (`forall j: a[j] := ...`), which "
               "the invariants from finite instances do not model yet");
      }
      for (const ExprPtr& e : instr.exprs) {
        if (instr.kind != Instr::Kind::kAssign) Of(*e);
      }
      for (const std::vector<Instr>& block : instr.blocks) grew = Instrs(block) || grew;
      if (instr.kind != Instr::Kind::kAssign) continue;
      for (std::size_t i = 0; i < instr.targets.size(); ++i) grew = Assign(instr, i) || grew;
    }
    return grew;
  }

  bool Assign(const Instr& instr, std::size_t i) {
    const Instr::Target& target = instr.targets[i];
    const Expr& rhs = *instr.exprs[i];
    if (target.pair) {
      ThreadIndex(*target.index);
      ThreadIndex(*target.column);
      if (Of(rhs) == Value::kId) Breach(rhs.where, "a thread id stored in a per-pair array");
      return false;
    }
    if (target.index) {
      if (target.size == 0) {
        ThreadIndex(*target.index);
      } else {
        ArrayIndex(*target.index);
      }
    }
    const Value v = Of(rhs);
    if (inferring_) return v == Value::kId && MarkIds(target.local, target.var, target.size);
    if (HoldsIds(target.local, target.var, target.size) && v == Value::kNumber) {
      const Variable& var =
          target.local ? program_.locals[target.var] : program_.shared[target.var];
      Breach(rhs.where, "`" + NameOf(var) + "` holds thread ids and here a number");
    }
    return false;
  }

  const Program& program_;
  std::vector<bool> shared_ids_;
  std::vector<bool> local_ids_;
  bool inferring_ = false;
  std::optional<OrderedBreach> breach_;
};

}  // namespace

std::optional<OrderedBreach> OrderedSymmetryBreach(const Program& program) {
  return Checker(program).Run();
}

namespace {

void IndexExprs(const Expr& e, std::vector<const Expr*>& out) {
  WalkExpr(e, [&](const Expr& x) {
    if ((x.kind == Expr::Kind::kLocal || x.kind == Expr::Kind::kPc) && !x.args.empty()) {
      out.push_back(x.args[0].get());
    }
    if (x.kind == Expr::Kind::kPair) {
      out.push_back(x.args[0].get());
      out.push_back(x.args[1].get());
    }
  });
}

void OthersLocalsIn(const Expr& e, std::vector<bool>& out) {
  WalkExpr(e, [&](const Expr& x) {
    if (x.kind == Expr::Kind::kLocal && !x.args.empty()) out[x.var] = true;
  });
}

}  // namespace

void ThreadIndexExprs(const std::vector<Instr>& body, std::vector<const Expr*>& out) {
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) IndexExprs(*e, out);
    for (const Instr::Target& t : op.targets) {
      if (t.local && t.index && t.size == 0) out.push_back(t.index.get());
      if (t.pair) {
        out.push_back(t.index.get());
        out.push_back(t.column.get());
      }
    }
    for (const std::vector<Instr>& block : op.blocks) ThreadIndexExprs(block, out);
  }
}

void OthersLocals(const std::vector<Instr>& body, std::vector<bool>& out) {
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) OthersLocalsIn(*e, out);
    for (const Instr::Target& t : op.targets) {
      if (t.local && t.index && t.size == 0) out[t.var] = true;
    }
    for (const std::vector<Instr>& block : op.blocks) OthersLocals(block, out);
  }
}

// Whether `e` depends on the viewing thread.
bool NamesSelf(const Expr& e) {
  if (e.kind == Expr::Kind::kSelf || e.kind == Expr::Kind::kLocalElement) return true;
  if ((e.kind == Expr::Kind::kLocal || e.kind == Expr::Kind::kPc) && e.args.empty()) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return NamesSelf(*a); });
}

// Whether a statement's body writes another thread's entry of a per-thread array (or an entry of
// a per-pair array).
bool WritesOthers(const std::vector<Instr>& body) {
  for (const Instr& op : body) {
    if (op.kind == Instr::Kind::kAssignEach) return true;
    for (const Instr::Target& t : op.targets) {
      if ((t.local && t.index && t.size == 0) || t.pair) return true;
    }
    for (const std::vector<Instr>& block : op.blocks) {
      if (WritesOthers(block)) return true;
    }
  }
  return false;
}

// Whether `e` names a quantifier's variable.
bool NamesBound(const Expr& e) {
  return e.kind == Expr::Kind::kBound ||
         std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return NamesBound(*a); });
}

// Whether `e` reads nothing but the locations and per-thread variables of the viewing thread and
// of threads bound outside it (no shared variable, no quantifier of its own).
bool OwnStatesOnly(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kShared:
    case Expr::Kind::kSharedElement:
    case Expr::Kind::kPair:
    case Expr::Kind::kCount:
    case Expr::Kind::kForall:
    case Expr::Kind::kExists:
      return false;
    case Expr::Kind::kLocal:
    case Expr::Kind::kPc:
      if (!e.args.empty() && e.args[0]->kind != Expr::Kind::kBound) return false;
      break;
    default:
      break;
  }
  return std::all_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& a) { return OwnStatesOnly(*a); });
}

IdVariables IdHolders(const Program& program) {
  Checker checker(program);
  checker.Run();
  return {checker.shared_ids(), checker.local_ids()};
}

IdVariables ThreadNamers(const Program& program) {
  IdVariables out = IdHolders(program);
  std::vector<const Expr*> indices;
  for (const Statement& s : program.statements) ThreadIndexExprs(s.body, indices);
  for (const Expr* e : indices) {
    if (e->kind == Expr::Kind::kShared && e->args.empty()) out.shared[e->var] = true;
    if (e->kind == Expr::Kind::kLocal && e->args.empty()) out.locals[e->var] = true;
  }
  return out;
}

}  // namespace druba::drb
