// Counting candidates of refinement (counting_candidates.h): a shared counter that each thread
// moves by constants on its way through some locations. Along every path of every statement the
// counter either keeps its value, changes by a constant, or is set otherwise; a location's
// potential is the counter's change from the start to it (the first location has 0). Potentials
// propagate along the constant changes only; a location also entered by another change (a reset)
// has none, and nor does any conflicting one. The counter would then be the sum over the threads of
// their locations' potentials: the count of the threads at each potential, weighted by it (`c ==
// count(j: pc[j] == b) + 2 * count(j: pc[j] == wait || pc[j] == end)` after two fetch-and-adds),
// alone and split by each Boolean local (a barrier counts the threads waiting for one sense).
// A Boolean shared variable counts as 0 or 1 (`(if MTX then 1 else 0)`, as the C kind writes a
// `_Bool` read): a lock taken by `assume !MTX; MTX := true` adds 1 where it is taken, and the
// candidate `(if MTX then 1 else 0) == count(j: pc[j] in the critical section)` says who holds it.
#include "refine/counting_candidates.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "drb/parser.h"

namespace druba::predabs {
namespace {

using Kind = Expr::Kind;
using Op = Expr::Op;

constexpr std::uint32_t kNoLocation = ~std::uint32_t{0};  // falls through to the rest

// Along a path: the counter's change so far (none: set otherwise) and its value where a condition
// names it (`assume m == 0`), so that `m := 1` after it is an add of 1 (a lock as a counter).
struct Path {
  std::optional<Int> delta;
  std::optional<Int> known;
};

struct Effect {
  std::uint32_t to = 0;
  Path path;
};

// The counter x and the locals that copy it (`t := x`, a read before the write `x := t + 1` of a
// C `x++`, which another thread may race with: the candidate is a guess the proof then checks).
struct Counter {
  std::uint32_t x = 0;
  std::set<std::uint32_t> copies;
};

// A wrap of unsigned C arithmetic, which a counter in range never makes: `x % m` with m a
// literal, and the C kind's `if x >= m then x - m else x` (`if x < 0 then x + m else x`): x.
const Expr& Unwrapped(const Expr& e) {
  if (e.kind == Kind::kBinary && e.op == Op::kMod && e.args[1]->kind == Kind::kNumber) {
    return Unwrapped(*e.args[0]);
  }
  if (e.kind == Kind::kIte) {
    const Expr& cond = *e.args[0];
    if (cond.kind == Kind::kBinary && (cond.op == Op::kGe || cond.op == Op::kLt) &&
        cond.args[1]->kind == Kind::kNumber) {
      return Unwrapped(*e.args[2]);
    }
  }
  return e;
}

// Whether `e` is the counter itself (`x`; a Boolean's `if x then 1 else 0`), or with `copies`
// also a local that copies it.
bool IsCounter(const Counter& c, const Expr& e, bool copies) {
  if (e.kind == Kind::kIte && e.args[1]->kind == Kind::kNumber && e.args[1]->value == 1 &&
      e.args[2]->kind == Kind::kNumber && e.args[2]->value == 0) {
    return e.args[0]->kind == Kind::kShared && e.args[0]->sort == Sort::kBool &&
           IsCounter(c, *e.args[0], false);
  }
  return e.args.empty() && ((e.kind == Kind::kShared && e.var == c.x) ||
                            (copies && e.kind == Kind::kLocal && c.copies.contains(e.var)));
}

// The value of a constant (a number, true or false as 1 or 0, a comparison of two numbers for
// (in)equality: the C kind's `(1 != 0)`), as the language computes it.
std::optional<Int> Constant(const Expr& e) {
  if (e.kind == Kind::kNumber || e.kind == Kind::kBool) return e.value;
  if (e.kind != Kind::kBinary || (e.op != Op::kEq && e.op != Op::kNe) ||
      e.args[0]->kind != Kind::kNumber || e.args[1]->kind != Kind::kNumber) {
    return std::nullopt;
  }
  return drb::ApplyBinaryOp(e.op, e.args[0]->value, e.args[1]->value);
}

// The constant by which `rhs` changes the counter (x + k, k + x, x - k, or a copy's t + k).
std::optional<Int> StepOf(const Counter& c, const Expr& written) {
  const Expr& rhs = Unwrapped(written);
  if (rhs.kind != Kind::kBinary || (rhs.op != Op::kAdd && rhs.op != Op::kSub)) return std::nullopt;
  const auto is_x = [&](const Expr& e) { return IsCounter(c, Unwrapped(e), true); };
  const Expr& a = *rhs.args[0];
  const Expr& b = *rhs.args[1];
  if (is_x(a) && b.kind == Kind::kNumber) return rhs.op == Op::kAdd ? b.value : Int(-b.value);
  if (rhs.op == Op::kAdd && is_x(b) && a.kind == Kind::kNumber) return a.value;
  return std::nullopt;
}

// The value `cond` says the counter has where it holds (`x == k`, `k == x`; a Boolean's `x` or
// `!x`), if it says one.
std::optional<Int> ValueNamed(const Counter& c, const Expr& cond) {
  if (cond.sort == Sort::kBool && IsCounter(c, cond, false)) return Int(1);
  if (cond.kind == Kind::kUnary && cond.op == Op::kNot && IsCounter(c, *cond.args[0], false)) {
    return Int(0);
  }
  if (cond.kind != Kind::kBinary || cond.op != Op::kEq) return std::nullopt;
  const auto is_x = [&](const Expr& e) { return IsCounter(c, e, false); };
  const Expr& a = *cond.args[0];
  const Expr& b = *cond.args[1];
  if (is_x(a) && b.kind == Kind::kNumber) return b.value;
  if (is_x(b) && a.kind == Kind::kNumber) return a.value;
  return std::nullopt;
}

void Effects(const Counter& c, const std::vector<Instr>& block, std::size_t at, Path path,
             std::uint32_t next, std::vector<Effect>& out) {
  for (std::size_t k = at; k < block.size(); ++k) {
    const Instr& op = block[k];
    if (op.kind == Instr::Kind::kGoto) {
      out.push_back({op.label, path});
      return;
    }
    if (op.kind == Instr::Kind::kAssume) {
      if (const std::optional<Int> v = ValueNamed(c, *op.exprs[0])) path.known = v;
      continue;
    }
    if (op.kind == Instr::Kind::kIf || op.kind == Instr::Kind::kChoice) {
      // The rest of this block follows each branch that does not jump.
      for (std::size_t branch = 0; branch < op.blocks.size(); ++branch) {
        Path in = path;
        if (op.kind == Instr::Kind::kIf && branch == 0) {
          if (const std::optional<Int> v = ValueNamed(c, *op.exprs[0])) in.known = v;
        }
        std::vector<Effect> inner;
        Effects(c, op.blocks[branch], 0, in, kNoLocation, inner);
        for (const Effect& e : inner) {
          if (e.to != kNoLocation) {
            out.push_back(e);
          } else {
            Effects(c, block, k + 1, e.path, next, out);
          }
        }
      }
      return;
    }
    if (op.kind != Instr::Kind::kAssign) continue;
    for (std::size_t t = 0; t < op.targets.size(); ++t) {
      const Instr::Target& target = op.targets[t];
      if (target.local || target.index != nullptr || target.var != c.x) continue;
      std::optional<Int> step = StepOf(c, *op.exprs[t]);
      const Expr& rhs = *op.exprs[t];
      const std::optional<Int> constant = Constant(rhs);
      if (!step && path.known && constant) step = *constant - *path.known;
      path.delta = step && path.delta ? std::optional<Int>(*path.delta + *step) : std::nullopt;
      path.known = step && path.known ? std::optional<Int>(*path.known + *step) : std::nullopt;
    }
  }
  out.push_back({next, path});
}

// The locals some statement sets to the counter's value (`t := x`).
std::set<std::uint32_t> CopiesOf(const std::vector<Instr>& block, const Counter& c) {
  std::set<std::uint32_t> out;
  for (const Instr& op : block) {
    for (const std::vector<Instr>& inner : op.blocks) out.merge(CopiesOf(inner, c));
    if (op.kind != Instr::Kind::kAssign) continue;
    for (std::size_t t = 0; t < op.targets.size(); ++t) {
      if (op.targets[t].local && op.targets[t].index == nullptr &&
          IsCounter(c, Unwrapped(*op.exprs[t]), false)) {
        out.insert(op.targets[t].var);
      }
    }
  }
  return out;
}

// Each location's potential for the counter, none where it has no single one.
std::vector<std::optional<Int>> Potentials(const Program& program, const Counter& c,
                                           bool& changes) {
  const ThreadTemplate& t = program.templates[0];
  std::vector<std::vector<Effect>> edges(t.size);
  std::vector<bool> reset(program.statements.size() + 1, false);
  for (std::uint32_t k = 0; k < t.size; ++k) {
    const Statement& st = program.statements[t.first + k];
    Effects(c, st.body, 0, Path{Int(0), std::nullopt}, st.next, edges[k]);
    for (const Effect& e : edges[k]) {
      if (!e.path.delta && e.to < reset.size()) reset[e.to] = true;
    }
  }
  // A conflicting location has no potential, and nor has what only it leads to: the search runs
  // again without going on from the conflicts found, until it finds no new one.
  std::vector<bool> conflict(program.statements.size() + 1, false);
  std::vector<std::optional<Int>> potential;
  for (bool again = true; again;) {
    again = false;
    potential.assign(conflict.size(), std::nullopt);
    potential[t.first] = Int(0);
    std::vector<std::uint32_t> work{t.first};
    changes = false;
    while (!work.empty()) {
      const std::uint32_t at = work.back();
      work.pop_back();
      if (at < t.first || at >= t.first + t.size || conflict[at]) continue;
      for (const Effect& e : edges[at - t.first]) {
        const std::optional<Int>& delta = e.path.delta;
        if (!delta || e.to >= potential.size() || (reset[e.to] && e.to != t.first)) continue;
        changes = changes || *delta != 0;
        const Int value = *potential[at] + *delta;
        if (!potential[e.to]) {
          potential[e.to] = value;
          work.push_back(e.to);
        } else if (*potential[e.to] != value && !conflict[e.to]) {
          conflict[e.to] = true;
          again = true;
        }
      }
    }
  }
  for (std::size_t k = 0; k < potential.size(); ++k) {
    if (conflict[k]) potential[k].reset();
  }
  return potential;
}

}  // namespace

void CountingAtoms(const Program& program, const std::string& j, std::vector<std::string>& out) {
  const ThreadTemplate& t = program.templates[0];
  for (std::uint32_t x = 0; x < program.shared.size(); ++x) {
    Counter counter{x, {}};
    for (std::uint32_t k = t.first; k < t.first + t.size; ++k) {
      counter.copies.merge(CopiesOf(program.statements[k].body, counter));
    }
    bool changes = false;
    const std::vector<std::optional<Int>> potential = Potentials(program, counter, changes);
    // The locations by potential (the end's too, a thread that has finished keeps its share).
    std::map<Int, std::vector<std::string>> by_weight;
    bool usable = changes;
    for (std::uint32_t k = t.first; k <= t.first + t.size && usable; ++k) {
      const std::uint32_t at = k < t.first + t.size ? k : t.end_pc;
      if (at >= potential.size() || !potential[at] || *potential[at] == 0) continue;
      const std::string label = at == t.end_pc ? "end" : program.statements[at].label;
      usable = label[0] != '@';
      by_weight[*potential[at]].push_back(fmt::format("pc[{}] == {}", j, label));
    }
    if (!usable || by_weight.empty()) continue;
    const std::string init =
        program.shared[x].init == 0 ? "" : " + " + program.shared[x].init.str();
    const auto atom = [&](const std::string& also) {
      std::string sum;
      for (const auto& [weight, places] : by_weight) {
        std::string where =
            places.size() == 1 ? places[0] : fmt::format("({})", fmt::join(places, " || "));
        const std::string term = fmt::format("count({}: {}{})", j, where, also);
        const Int size = weight < 0 ? Int(-weight) : weight;
        const std::string scaled = size == 1 ? term : size.str() + " * " + term;
        if (sum.empty()) {
          sum = weight < 0 ? "0 - " + scaled : scaled;
        } else {
          sum += (weight < 0 ? " - " : " + ") + scaled;
        }
      }
      const std::string& name = program.shared[x].name;
      return program.shared[x].type == Type::kBool
                 ? fmt::format("(if {} then 1 else 0) == {}{}", name, sum, init)
                 : fmt::format("{} == {}{}", name, sum, init);
    };
    out.push_back(atom(""));
    for (const Variable& local : program.locals) {
      if (local.type != Type::kBool || local.name.find('[') != std::string::npos) continue;
      out.push_back(atom(fmt::format(" && {}[{}]", local.name, j)));
      out.push_back(atom(fmt::format(" && !{}[{}]", local.name, j)));
    }
  }
}

}  // namespace druba::predabs
