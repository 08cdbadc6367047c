// `unsafe EXPR;` as the assertions that check it in every step (drb/unsafe.h).
#include "drb/unsafe.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "drb/parser.h"

namespace druba::drb {

namespace {

Instr CloneInstr(const Instr& in) {
  Instr out;
  out.kind = in.kind;
  out.label = in.label;
  out.unsafe = in.unsafe;
  out.slot = in.slot;
  out.exclude_self = in.exclude_self;
  out.where = in.where;
  for (const Instr::Target& t : in.targets) {
    out.targets.push_back({t.local, t.var, t.index ? CloneExpr(*t.index) : nullptr, t.size, t.pair,
                           t.column ? CloneExpr(*t.column) : nullptr});
  }
  for (const ExprPtr& e : in.exprs) out.exprs.push_back(CloneExpr(*e));
  for (const std::vector<Instr>& block : in.blocks) {
    std::vector<Instr>& copy = out.blocks.emplace_back();
    for (const Instr& inner : block) copy.push_back(CloneInstr(inner));
  }
  return out;
}

// Puts the check `make(target)` before every way out of `body`: each goto (to its label), and its
// end when `next` is set (to next).
void CheckBeforeEachExit(std::vector<Instr>& body, const std::function<Instr(std::uint32_t)>& make,
                         std::optional<std::uint32_t> next) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i].kind == Instr::Kind::kGoto) {
      body.insert(body.begin() + static_cast<std::ptrdiff_t>(i), make(body[i].label));
      ++i;
    }
    for (std::vector<Instr>& block : body[i].blocks) CheckBeforeEachExit(block, make, std::nullopt);
  }
  if (next) body.push_back(make(*next));
}

ExprPtr Node(Expr::Kind kind, Expr::Op op, const SourceLocation& where, ExprPtr a,
             ExprPtr b = nullptr) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->op = op;
  e->sort = Sort::kBool;
  e->where = where;
  e->height = a->height + 1;
  e->args.push_back(std::move(a));
  if (b) {
    e->height = std::max(e->height, b->height + 1);
    e->args.push_back(std::move(b));
  }
  return e;
}

ExprPtr Leaf(Expr::Kind kind, const SourceLocation& where, Sort sort, std::uint32_t value = 0) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->sort = sort;
  e->where = where;
  e->value = value;
  return e;
}

// `e` with the bound variable `slot` read as the executing thread (its own locals, `self`).
ExprPtr AsSelf(const Expr& e, std::uint32_t slot) {
  ExprPtr out = CloneExpr(e);
  std::function<void(Expr&)> replace = [&](Expr& x) {
    if ((x.kind == Expr::Kind::kLocal || x.kind == Expr::Kind::kPc) && x.args.size() == 1 &&
        x.args[0]->kind == Expr::Kind::kBound && x.args[0]->var == slot) {
      x.args.clear();  // the executing thread's own
    }
    if (x.kind == Expr::Kind::kBound && x.var == slot) {
      x.kind = Expr::Kind::kSelf;
      x.var = 0;
    }
    for (ExprPtr& arg : x.args) replace(*arg);
  };
  replace(*out);
  return out;
}

// The first count over every thread (self included) in `e`, outside nested quantifiers.
Expr* FirstCount(Expr& e) {
  if (e.kind == Expr::Kind::kCount && !e.exclude_self) return &e;
  if (e.kind == Expr::Kind::kForall || e.kind == Expr::Kind::kExists ||
      e.kind == Expr::Kind::kCount) {
    return nullptr;
  }
  for (ExprPtr& arg : e.args) {
    if (Expr* found = FirstCount(*arg)) return found;
  }
  return nullptr;
}

ExprPtr AfterStep(const Expr& e, std::uint32_t target);

// A comparison over a count of every thread, after the step: the executing thread counted (the
// count of the others plus one) or not.
ExprPtr SplitCount(const Expr& comparison, std::uint32_t target) {
  const SourceLocation& at = comparison.where;
  ExprPtr without = CloneExpr(comparison);
  Expr* count = FirstCount(*without);
  ExprPtr self_in = AfterStep(*AsSelf(*count->args[0], count->var), target);
  count->exclude_self = true;
  ExprPtr with = CloneExpr(*without);
  Expr* in_with = FirstCount(*with);
  if (in_with == nullptr) {  // the same place in the copy: the one count that excludes self
    std::function<Expr*(Expr&)> find = [&](Expr& x) -> Expr* {
      if (x.kind == Expr::Kind::kCount && x.exclude_self && x.var == count->var) return &x;
      for (ExprPtr& arg : x.args) {
        if (Expr* found = find(*arg)) return found;
      }
      return nullptr;
    };
    in_with = find(*with);
  }
  auto plus = std::make_unique<Expr>();
  plus->kind = Expr::Kind::kBinary;
  plus->op = Expr::Op::kAdd;
  plus->sort = Sort::kInt;
  plus->where = in_with->where;
  plus->height = in_with->height + 1;
  plus->args.push_back(CloneExpr(*in_with));
  plus->args.push_back(Leaf(Expr::Kind::kNumber, at, Sort::kInt, 1));
  *in_with = std::move(*plus);
  ExprPtr not_in = Node(Expr::Kind::kUnary, Expr::Op::kNot, at, CloneExpr(*self_in));
  return Node(
      Expr::Kind::kBinary, Expr::Op::kOr, at,
      Node(Expr::Kind::kBinary, Expr::Op::kAnd, at, std::move(self_in), AfterStep(*with, target)),
      Node(Expr::Kind::kBinary, Expr::Op::kAnd, at, std::move(not_in),
           AfterStep(*without, target)));
}

// `pc[e] == L` (or !=, either side) for a thread named by an expression that is not a quantifier's
// (`pc[0] == cs`): that thread may be the executing one, which is at `target` after the step.
ExprPtr SplitNamedPc(const Expr& comparison, std::size_t side, std::uint32_t target) {
  const SourceLocation& at = comparison.where;
  const Expr& index = *comparison.args[side]->args[0];
  ExprPtr is_self = Node(Expr::Kind::kBinary, Expr::Op::kEq, at, CloneExpr(index),
                         Leaf(Expr::Kind::kSelf, at, Sort::kInt));
  ExprPtr not_self = Node(Expr::Kind::kBinary, Expr::Op::kNe, at, CloneExpr(index),
                          Leaf(Expr::Kind::kSelf, at, Sort::kInt));
  ExprPtr moved = CloneExpr(comparison);
  moved->args[side] = Leaf(Expr::Kind::kLabel, at, Sort::kPc, target);
  ExprPtr kept = CloneExpr(comparison);
  kept->args[1 - side] = AfterStep(*comparison.args[1 - side], target);
  return Node(
      Expr::Kind::kBinary, Expr::Op::kOr, at,
      Node(Expr::Kind::kBinary, Expr::Op::kAnd, at, std::move(is_self), AfterStep(*moved, target)),
      Node(Expr::Kind::kBinary, Expr::Op::kAnd, at, std::move(not_self), std::move(kept)));
}

// An `unsafe` property read in the state a step reaches, from inside the step's body: the body's
// writes are visible there, but the executing thread's location is still the one it leaves, so
// every read of it becomes `target`, the location the step goes to. A quantifier over every thread
// is split into the executing thread and the others.
ExprPtr AfterStep(const Expr& e, std::uint32_t target) {
  const SourceLocation& at = e.where;
  if (e.kind == Expr::Kind::kPc && (e.args.empty() || e.args[0]->kind == Expr::Kind::kSelf)) {
    return Leaf(Expr::Kind::kLabel, at, Sort::kPc, target);
  }
  if ((e.kind == Expr::Kind::kForall || e.kind == Expr::Kind::kExists) && !e.exclude_self) {
    ExprPtr others = CloneExpr(e);
    others->exclude_self = true;
    others->args[0] = AfterStep(*e.args[0], target);
    return Node(Expr::Kind::kBinary, e.kind == Expr::Kind::kForall ? Expr::Op::kAnd : Expr::Op::kOr,
                at, AfterStep(*AsSelf(*e.args[0], e.var), target), std::move(others));
  }
  if (e.kind == Expr::Kind::kBinary && e.sort == Sort::kBool) {
    ExprPtr copy = CloneExpr(e);
    if (FirstCount(*copy) != nullptr) return SplitCount(e, target);
    if (e.op == Expr::Op::kEq || e.op == Expr::Op::kNe) {
      for (std::size_t side = 0; side < 2; ++side) {
        const Expr& pc = *e.args[side];
        if (pc.kind == Expr::Kind::kPc && !pc.args.empty() &&
            pc.args[0]->kind != Expr::Kind::kBound && pc.args[0]->kind != Expr::Kind::kSelf) {
          return SplitNamedPc(e, side, target);
        }
      }
    }
  }
  ExprPtr out = CloneExpr(e);
  std::uint32_t height = 1;
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    out->args[i] = AfterStep(*e.args[i], target);
    height = std::max(height, out->args[i]->height + 1);
  }
  out->height = height;
  return out;
}

// Evaluations AtStart may make before it gives up (nested quantifiers over many templates).
constexpr std::size_t kAtStartBudget = 100000;

std::optional<Int> AtStart(const Program& program, const Expr& e,
                           std::vector<std::uint32_t>& template_of, std::size_t& budget);

// A quantifier's body has one value per template at the start; a count is 0 when no thread is
// counted, and otherwise depends on the thread count.
std::optional<Int> QuantifierAtStart(const Program& program, const Expr& e,
                                     std::vector<std::uint32_t>& template_of, std::size_t& budget) {
  if (e.exclude_self) return std::nullopt;
  if (template_of.size() <= e.var) template_of.resize(e.var + 1);
  bool all = true;
  bool any = false;
  for (std::uint32_t t = 0; t < program.templates.size(); ++t) {
    template_of[e.var] = t;
    const std::optional<Int> body = AtStart(program, *e.args[0], template_of, budget);
    if (!body) return std::nullopt;
    all = all && *body != 0;
    any = any || *body != 0;
  }
  if (e.kind == Expr::Kind::kCount) return any ? std::nullopt : std::optional<Int>(0);
  return Int(e.kind == Expr::Kind::kForall ? all : any);
}

// The value of `e` in the initial state of every thread count, read off the declarations: each
// thread stands at its template's first statement with its locals' initial values, so a
// quantifier's body has one value per template. None when that value depends on the thread count
// (a count of threads that are all counted) or cannot be read so (a thread's number used as a
// value, an index computed otherwise): then the initial state is checked by a step.
std::optional<Int> AtStart(const Program& program, const Expr& e,
                           std::vector<std::uint32_t>& template_of, std::size_t& budget) {
  if (budget == 0) return std::nullopt;  // the step checks it instead
  --budget;
  const auto arg = [&](std::size_t i) { return AtStart(program, *e.args[i], template_of, budget); };
  const auto template_at = [&](const Expr& index) -> std::optional<std::uint32_t> {
    if (index.kind == Expr::Kind::kBound) return template_of[index.var];
    if (index.kind != Expr::Kind::kNumber) return std::nullopt;
    Int left = index.value;
    for (std::uint32_t t = 0; t < program.templates.size(); ++t) {
      if (left < program.templates[t].count) return t;
      left -= program.templates[t].count;
    }
    return std::nullopt;
  };
  switch (e.kind) {
    case Expr::Kind::kNumber:
    case Expr::Kind::kBool:
    case Expr::Kind::kLabel:
      return e.value;
    case Expr::Kind::kShared:  // a value chosen by the first step is not known here
      if (program.shared[e.var].any) return std::nullopt;
      return program.shared[e.var].init;
    case Expr::Kind::kLocal:
      if (e.args.size() != 1 || !template_at(*e.args[0])) return std::nullopt;
      return program.locals[e.var].init;
    case Expr::Kind::kPair:
      if (!template_at(*e.args[0]) || !template_at(*e.args[1])) return std::nullopt;
      return program.pairs[e.var].init;
    case Expr::Kind::kPc: {
      if (e.args.size() != 1) return std::nullopt;
      const std::optional<std::uint32_t> t = template_at(*e.args[0]);
      if (!t) return std::nullopt;
      return Int(program.templates[*t].first);
    }
    case Expr::Kind::kSharedElement: {
      const std::optional<Int> index = arg(0);
      if (!index || *index < 0 || *index >= e.value) return std::nullopt;
      const Variable& element = program.shared[e.var + static_cast<std::uint32_t>(*index)];
      if (element.any) return std::nullopt;
      return element.init;
    }
    case Expr::Kind::kUnary: {
      const std::optional<Int> v = arg(0);
      if (!v) return std::nullopt;
      return e.op == Expr::Op::kNot ? Int(*v == 0 ? 1 : 0) : Int(-*v);
    }
    case Expr::Kind::kBinary: {
      const std::optional<Int> a = arg(0);
      const std::optional<Int> b = arg(1);
      if (!a || !b) return std::nullopt;
      return ApplyBinaryOp(e.op, *a, *b);  // none for a division by zero: left to the step
    }
    case Expr::Kind::kForall:
    case Expr::Kind::kExists:
    case Expr::Kind::kCount:
      return QuantifierAtStart(program, e, template_of, budget);
    default:
      return std::nullopt;
  }
}

Instr UnsafeCheck(ExprPtr condition) {
  Instr check;
  check.kind = Instr::Kind::kAssert;
  check.unsafe = true;
  check.where = condition->where;
  check.exprs.push_back(std::move(condition));
  return check;
}

}  // namespace

void CheckUnsafeEveryStep(Program& program) {
  for (const Predicate& p : program.unsafe) {
    const auto make = [&p](std::uint32_t target) {
      return UnsafeCheck(
          Node(Expr::Kind::kUnary, Expr::Op::kNot, p.expr->where, AfterStep(*p.expr, target)));
    };
    for (Statement& st : program.statements) CheckBeforeEachExit(st.body, make, st.next);
    // The initial state, unless it is safe at every thread count: each thread starts at its
    // template's first statement, which checks the state it starts from before anything else
    // (any later state was checked by the step that entered it).
    std::vector<std::uint32_t> template_of(program.num_slots);
    std::size_t budget = kAtStartBudget;
    if (AtStart(program, *p.expr, template_of, budget) == std::optional<Int>(0)) continue;
    for (const ThreadTemplate& t : program.templates) {
      if (t.size == 0) continue;
      std::vector<Instr>& first = program.statements[t.first].body;
      first.insert(first.begin(), UnsafeCheck(Node(Expr::Kind::kUnary, Expr::Op::kNot,
                                                   p.expr->where, CloneExpr(*p.expr))));
    }
  }
}

void ChooseInitialValues(Program& program) {
  std::optional<std::uint32_t> started;
  Instr choose;  // x := *, ... for the variables declared `= *`
  choose.kind = Instr::Kind::kAssign;
  for (std::uint32_t v = 0; v < program.shared.size(); ++v) {
    if (program.shared[v].name == "__started") started = v;
    if (!program.shared[v].any) continue;
    choose.where = program.shared[v].where;
    choose.targets.push_back({false, v, nullptr, 0, false, nullptr});
    auto any = std::make_unique<Expr>();
    any->kind = Expr::Kind::kHavoc;
    any->sort = program.shared[v].type == Type::kBool ? Sort::kBool : Sort::kInt;
    any->where = program.shared[v].where;
    choose.exprs.push_back(std::move(any));
  }
  if (!started) return;
  const SourceLocation& at = program.shared[*started].where;
  Instr guard;  // if !__started then { ... }
  guard.kind = Instr::Kind::kIf;
  guard.where = at;
  auto read = std::make_unique<Expr>();
  read->kind = Expr::Kind::kShared;
  read->sort = Sort::kBool;
  read->var = *started;
  read->where = at;
  guard.exprs.push_back(Node(Expr::Kind::kUnary, Expr::Op::kNot, at, std::move(read)));
  std::vector<Instr>& then = guard.blocks.emplace_back();
  if (!choose.targets.empty()) then.push_back(std::move(choose));
  for (const ExprPtr& c : program.initially) {
    Instr assume;
    assume.kind = Instr::Kind::kAssume;
    assume.where = c->where;
    assume.exprs.push_back(CloneExpr(*c));
    then.push_back(std::move(assume));
  }
  Instr set;
  set.kind = Instr::Kind::kAssign;
  set.where = at;
  set.targets.push_back({false, *started, nullptr, 0, false, nullptr});
  auto yes = std::make_unique<Expr>();
  yes->kind = Expr::Kind::kBool;
  yes->sort = Sort::kBool;
  yes->value = 1;
  yes->where = at;
  set.exprs.push_back(std::move(yes));
  then.push_back(std::move(set));
  guard.blocks.emplace_back();
  for (const ThreadTemplate& t : program.templates) {
    if (t.size == 0) continue;
    std::vector<Instr>& first = program.statements[t.first].body;
    first.insert(first.begin(), CloneInstr(guard));
  }
}

}  // namespace druba::drb
