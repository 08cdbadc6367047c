#include "strategy/thread_counts.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/diagnostics.h"
#include "drb/counting.h"
#include "smt/encoder.h"

namespace druba::predabs {
namespace {

constexpr int kMaxCountWitnesses = 8;  // Encoder::AtLeast

// The largest "at least m threads" that `count OP k` needs (Encoder::CompareCount).
Int WitnessesFor(Expr::Op op, const Int& k) {
  return op == Expr::Op::kGe || op == Expr::Op::kLt ? k : k + 1;
}

// Mirrors what the symbolic encoding accepts (Encoder::EvalIn, CompareCount, AtLeast,
// QuantifySymbolically), with the same messages at the same places.
void CheckCounts(const Expr& e) {
  if (drb::ComparedWithNumber(e)) {
    const bool left = e.args[0]->kind == Expr::Kind::kCount;
    const Expr& count = *e.args[left ? 0 : 1];
    const Expr& other = *e.args[left ? 1 : 0];
    if (WitnessesFor(CountOnLeft(e), other.value) > kMaxCountWitnesses) {
      throw InputError(count.where,
                       "with the thread count left symbolic, druba compares count(...) only with "
                       "numbers up to 8 (--threads N checks one count)");
    }
    CheckCounts(*count.args[0]);
    return;
  }
  if (e.kind == Expr::Kind::kCount && !drb::CountsOwnStates(e) && !drb::CountsEveryThread(e)) {
    throw InputError(e.where,
                     "with the thread count left symbolic, count(...) must be compared with a "
                     "number, or count threads by their own location and locals only (`pc[i]`, "
                     "`l[i]`: --threads N checks one count)");
  }
  for (const ExprPtr& arg : e.args) CheckCounts(*arg);
}

void CheckCounts(const std::vector<Instr>& body) {
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) CheckCounts(*e);
    for (const Instr::Target& t : op.targets) {
      if (t.index) CheckCounts(*t.index);
    }
    for (const std::vector<Instr>& block : op.blocks) CheckCounts(block);
  }
}

}  // namespace

void CheckCountsForEveryCount(const Program& program, const AbstractionSpec& spec) {
  for (const Statement& st : program.statements) CheckCounts(st.body);
  for (const Predicate& p : spec.predicates) CheckCounts(*p.expr);
}

ThreadCounts ParseThreadCounts(const std::string& text, const Program& program,
                               std::uint32_t max_threads) {
  ThreadCounts counts;
  if (text.empty() && program.templates.size() == 1 && program.templates[0].every_count) {
    return ParseThreadCounts(std::to_string(program.templates[0].count) + "..", program,
                             max_threads);
  }
  if (text.empty()) {
    counts.first = counts.last = program.NumThreads();
    return counts;
  }
  std::string digits = text;
  if (digits.size() > 2 && digits.ends_with("..")) {
    counts.every_count_from_first = true;
    digits.resize(digits.size() - 2);
  }
  if (digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw InputError({"--threads", 0, 0},
                     "expected N or N.. (N a thread count), not '" + text + "'");
  }
  counts.first = static_cast<std::uint32_t>(std::stoul(digits));
  if (counts.first == 0) {
    throw InputError({"--threads", 0, 0}, "the thread count must be at least 1");
  }
  if (program.templates.size() != 1 && counts.first != program.NumThreads()) {
    throw InputError({"--threads", 0, 0},
                     "the model has several thread templates; their counts are fixed in the file");
  }
  // Symmetric programs get the closure across counts, the others of one template the invariants
  // from finite instances (invariants/ordered_invariant.h).
  if (counts.every_count_from_first && program.templates.size() != 1) {
    throw InputError({"--threads", 0, 0},
                     fmt::format("--threads N.. needs a program of one thread template (this one "
                                 "has {}: their counts are fixed in the file)",
                                 program.templates.size()));
  }
  if (counts.every_count_from_first && program.updates_every_at.line != 0) {
    throw InputError(program.updates_every_at,
                     "--threads N.. cannot take this program yet: this statement updates every "
                     "thread's entry in one step, which the every-count arguments do not model "
                     "(they take a step to change the acting thread's own state only); give one "
                     "count, --threads N");
  }
  counts.last =
      counts.every_count_from_first ? std::max(max_threads, counts.first + 1) : counts.first;
  return counts;
}

ChosenAbstraction ChooseAbstraction(const Program& program, const std::string& name,
                                    const ThreadCounts& counts) {
  ChosenAbstraction chosen;
  if (!name.empty()) {
    for (const AbstractionSpec& a : program.abstractions) {
      if (a.name == name) chosen.block = &a;
    }
    if (chosen.block == nullptr) {
      throw InputError({"--abstraction", 0, 0},
                       "the model has no abstraction named '" + name + "'");
    }
    return chosen;
  }
  if (!program.abstractions.empty()) {
    chosen.block = &program.abstractions.front();
    return chosen;
  }
  // Every thread's location (one thread's for N..: the others are interchangeable).
  AbstractionSpec& locations = chosen.locations;
  locations.name = "(default: locations)";
  const std::uint32_t tracked = counts.every_count_from_first ? 1 : counts.first;
  for (std::uint32_t t = 0; t < tracked; ++t) {
    locations.pcs.push_back({t == 0 ? std::nullopt : std::optional<std::uint32_t>(t)});
  }
  locations.symmetric = tracked == 1;
  return chosen;
}

namespace {

bool SameSet(const StateStore& a, const StateStore& b) {
  if (a.size() != b.size()) return false;
  for (std::uint32_t id = 0; id < a.size(); ++id) {
    if (!b.Find(a.Get(id))) return false;
  }
  return true;
}

}  // namespace

ThreadCountsResult RunThreadCounts(const Program& program, const AbstractionSpec& spec,
                                   const ThreadCounts& counts, unsigned solver_timeout_ms,
                                   LimitWatch* limits, const SolverLog* log,
                                   const std::function<CountOutcome(std::uint32_t)>& run_one) {
  ThreadCountsResult out;
  // Every count run must be safe, two consecutive counts must reach the same abstract set, and
  // that set must be closed across thread counts: the verdict combines the three claims.
  Finding total;
  const StateStore* previous = nullptr;
  for (std::uint32_t n = counts.first; n <= counts.last; ++n) {
    const CountOutcome one = run_one(n);
    total = Combine(total, {one.verdict, one.reason});
    if (!counts.every_count_from_first) total.reason = one.reason;
    if (!counts.every_count_from_first || one.verdict != Verdict::kSafe) break;
    const StateStore* set = one.abstract_states;
    if (previous == nullptr || !SameSet(*previous, *set)) {
      if (previous != nullptr && n == counts.last) {
        total = Combine(total, {Verdict::kUnknown,
                                "the abstract set still changed from " + std::to_string(n - 1) +
                                    " to " + std::to_string(n) + " threads (--max-threads " +
                                    std::to_string(counts.last) + ")"});
      }
      previous = set;
      continue;
    }
    out.all =
        CheckAllThreadCounts(program, spec, *set, counts.first, solver_timeout_ms, limits, log);
    total = Combine(total, {out.all->closed ? Verdict::kSafe : Verdict::kUnknown,
                            "every thread count: " + out.all->reason});
    if (total.verdict == Verdict::kSafe) {
      total.reason = "safe for every thread count >= " + std::to_string(counts.first) +
                     ": the abstract sets for " + std::to_string(n - 1) + " and " +
                     std::to_string(n) +
                     " threads agree, every initial abstract state is reached, and the set is "
                     "closed under the actions that disrespect the abstraction across thread "
                     "counts" +
                     (out.all->completed ? std::string(" once the abstract states they lead to "
                                                       "that no run reached were added")
                                         : std::string());
    }
    break;
  }
  out.verdict = total.verdict;
  out.reason = total.reason;
  return out;
}

}  // namespace druba::predabs
