#include "predabs/predicate_abstraction.h"

#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <stdexcept>

#include "common/resources.h"
#include "predabs/checker.h"
#include "smt/encoder.h"
#include "smt/solver.h"

namespace druba::predabs {

namespace {

void CheckIndices(const Program& program, const Expr& e, std::optional<std::uint32_t> n,
                  const std::string& abstraction, bool own_indices) {
  if ((e.kind == Expr::Kind::kLocal || e.kind == Expr::Kind::kPc) && !e.args.empty()) {
    const Expr& index = *e.args[0];
    if (n && index.kind == Expr::Kind::kNumber && (index.value < 0 || index.value >= *n)) {
      throw InputError(index.where, "abstraction '" + abstraction + "' names thread " +
                                        index.value.str() + ", but there are " +
                                        std::to_string(*n) + " threads");
    }
    if (index.kind != Expr::Kind::kNumber && index.kind != Expr::Kind::kBound &&
        (program.symmetric || !own_indices)) {
      throw InputError(index.where,
                       "in a predicate a thread index must be a number or a "
                       "quantified thread variable");
    }
  }
  for (const ExprPtr& arg : e.args) CheckIndices(program, *arg, n, abstraction, own_indices);
}

}  // namespace

void CheckAbstractionFits(const Program& program, const AbstractionSpec& spec,
                          std::optional<std::uint32_t> n, bool own_indices) {
  for (const TrackedPc& pc : spec.pcs) {
    if (n && pc.thread && *pc.thread >= *n) {
      throw InputError(spec.where, "abstraction '" + spec.name + "' tracks pc[" +
                                       std::to_string(*pc.thread) + "], but there are " +
                                       std::to_string(*n) + " threads");
    }
  }
  for (const Predicate& p : spec.predicates) {
    CheckIndices(program, *p.expr, n, spec.name, own_indices);
  }
}

PredicateAbstraction::PredicateAbstraction(const IntModel& model, const AbstractionSpec& spec,
                                           unsigned timeout_ms)
    : model_(model), spec_(spec), timeout_ms_(timeout_ms) {
  CheckAbstractionFits(model.program(), spec, model.num_threads());
}

PredicateAbstraction::~PredicateAbstraction() = default;

void PredicateAbstraction::Abstract(StateView state, std::span<Word> out) const {
  std::size_t i = 0;
  for (const TrackedPc& pc : spec_.pcs) out[i++] = state[model_.PcSlot(pc.thread.value_or(0))];
  for (const Predicate& p : spec_.predicates) out[i++] = model_.Holds(*p.expr, state, 0) ? 1 : 0;
  out[i] = model_.AnyThreadFailed(state) ? 1 : 0;
}

const std::vector<ActionClass>& PredicateAbstraction::Classes() const {
  if (!classes_) {
    if (!checker_) {
      checker_ = std::make_unique<Checker>(model_.program(), spec_, model_.num_threads(), 0,
                                           timeout_ms_, &stats_, limits_, &log_);
    }
    classes_ = checker_->Classify();
  }
  return *classes_;
}

void PredicateAbstraction::SuccessorsInto(const ActionClass& c, StateView abstract,
                                          const StateStore& reached,
                                          std::vector<std::vector<Word>>* out,
                                          std::string* undecided) const {
  Classes();
  checker_->Enumerate(c, abstract, &reached, out, undecided);
}

std::string PredicateAbstraction::DeadlockFree(const StateStore& set) const {
  Classes();  // makes the checker
  for (std::uint32_t id = 0; id < set.size(); ++id) {
    const StateView a = set.Get(id);
    if (a.back() != 0) continue;
    const SatResult r = checker_->Deadlock(a, set);
    if (r == SatResult::kUnsat) continue;
    return (r == SatResult::kSat ? "the solver finds a state with every thread blocked in ("
                                 : "the solver could not decide deadlock freedom in (") +
           Describe(a) + ")";
  }
  return "";
}

std::string DescribeAbstract(const Program& program, const AbstractionSpec& spec,
                             StateView abstract) {
  std::string out;
  std::size_t i = 0;
  for (const TrackedPc& pc : spec.pcs) {
    if (!out.empty()) out += ", ";
    out += (pc.thread ? "pc[" + std::to_string(*pc.thread) + "]" : std::string("pc")) + "=" +
           program.PcName(abstract[i++]);
  }
  for (const Predicate& p : spec.predicates) {
    if (!out.empty()) out += ", ";
    const bool plain = p.name.find(' ') == std::string::npos;
    out += abstract[i++] != 0 ? p.name : (plain ? "!" + p.name : "!(" + p.name + ")");
  }
  // The last word is whether any thread has failed, not the viewing thread alone.
  if (abstract[i] != 0) out += out.empty() ? "some thread FAILED" : ", some thread FAILED";
  return out.empty() ? "(no predicates)" : out;
}

std::string PredicateAbstraction::Describe(StateView abstract) const {
  return DescribeAbstract(model_.program(), spec_, abstract);
}

std::string PredicateAbstraction::DescribeAction(std::uint32_t thread, std::uint32_t action) const {
  const Statement& s = model_.program().statements[action];
  const std::string who =
      thread == kOtherThread ? "another thread" : "thread " + std::to_string(thread);
  return who + " executing " + s.label + ": " + s.text + " (line " + std::to_string(s.where.line) +
         ")";
}

namespace {

// A variable's name without an array element's index: `pause`, `slot` for `slot[2]`.
std::string BaseName(const std::string& name) {
  return name.substr(0, name.find('['));
}

// Every way executing `body` can send its thread to the error location, in the report's words.
void WaysToFail(const Program& program, const std::vector<Instr>& body,
                std::vector<std::string>& ways) {
  const auto add = [&ways](std::string way) {
    if (std::find(ways.begin(), ways.end(), way) == ways.end()) ways.push_back(std::move(way));
  };
  const auto scan = [&](const Expr& root) {
    WalkExpr(root, [&](const Expr& e) {
      if (e.kind == Expr::Kind::kBinary && (e.op == Expr::Op::kDiv || e.op == Expr::Op::kMod)) {
        add("a division by zero");
      }
      if (e.kind == Expr::Kind::kSharedElement || e.kind == Expr::Kind::kLocalElement ||
          e.kind == Expr::Kind::kPair || (e.kind == Expr::Kind::kLocal && !e.args.empty())) {
        add("an index out of range");
      }
    });
  };
  for (const Instr& in : body) {
    for (const ExprPtr& e : in.exprs) scan(*e);
    if (in.kind == Instr::Kind::kAssert) {
      add(in.unsafe ? "the state is unsafe" : "the assertion fails");
    }
    for (const Instr::Target& t : in.targets) {
      if (t.index) scan(*t.index);
      if (t.column) scan(*t.column);
      if (t.index || t.column) add("an index out of range");
      const Variable& v = drb::TargetVariable(program, t);
      if (v.upper) {
        add(BaseName(v.name) + " would leave its range");
      } else if (v.type == Type::kNat) {
        add(BaseName(v.name) + ", a nat, would go below zero");
      }
    }
    for (const std::vector<Instr>& block : in.blocks) WaysToFail(program, block, ways);
  }
}

}  // namespace

std::string HowItFails(const Program& program, const Statement& statement) {
  std::vector<std::string> ways;
  WaysToFail(program, statement.body, ways);
  std::string out;
  for (std::size_t i = 0; i < ways.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == ways.size() ? " or " : ", ") + ways[i];
  }
  return out;
}

std::string PredicateAbstraction::DescribeStep(std::uint32_t thread, std::uint32_t action,
                                               StateView from, StateView to) const {
  std::string out = DescribeAction(thread, action);
  const std::size_t failed = spec_.pcs.size() + spec_.predicates.size();
  if (failed < to.size() && to[failed] != 0 && from[failed] == 0) {
    const std::string how = HowItFails(model_.program(), model_.program().statements[action]);
    if (!how.empty()) out += ", where " + how;
  }
  return out;
}

bool AbstractSuccessorsOf(const Program& program, const AbstractionSpec& spec,
                          std::optional<std::uint32_t> count, std::uint32_t min_threads,
                          const ActionClass& action, StateView abstract, const StateStore& reached,
                          unsigned timeout_ms, LimitWatch* limits, SolverStats* stats,
                          std::vector<std::vector<Word>>* out, std::string* why, Solver* solver) {
  Checker checker(program, spec, count, min_threads, timeout_ms, stats, limits, nullptr, solver);
  return checker.Enumerate(action, abstract, &reached, out, why);
}

SatResult AbstractStateAdmitted(const Program& program, const AbstractionSpec& spec,
                                std::optional<std::uint32_t> count, std::uint32_t min_threads,
                                StateView abstract, const StateStore& reached, unsigned timeout_ms,
                                LimitWatch* limits, SolverStats* stats, Solver* solver) {
  Checker checker(program, spec, count, min_threads, timeout_ms, stats, limits, nullptr, solver);
  return checker.Admits(abstract, reached);
}

}  // namespace druba::predabs
