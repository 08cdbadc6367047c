#include "invariants/ordered_invariant.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "drb/counting.h"
#include "drb/ordered.h"
#include "interp/model.h"
#include "invariants/ordered_houdini.h"
#include "smt/encoder.h"
#include "smt/solver.h"

namespace druba::predabs {
namespace {

// Houdini at first, first + 1 threads first, and at first + 2 too while more than
// kManyCandidates are left or an instance was stopped by its budget (ground queries: cheaper than
// the symbolic ones for as many).
constexpr std::uint32_t kOrderedFixedCounts = 2;
constexpr std::size_t kManyCandidates = 300;
// Rounds of candidates that block counterexamples to induction, and such candidates in all, at
// most.
constexpr int kBlockRounds = 24;
constexpr std::size_t kMaxBlocking = 160;

}  // namespace

std::string OrderedInvariantBlock(const std::vector<std::string>& invariant) {
  std::string out = "abstraction druba_ordered {\n";
  for (std::size_t i = 0; i < invariant.size(); ++i) {
    out += fmt::format("  predicate c{}: {};\n", i, invariant[i]);
  }
  return out + "}\n";
}

std::string OrderedCertificate(const std::string& digest, std::uint32_t first,
                               const std::vector<std::string>& invariant) {
  std::vector<int> all(invariant.size(), 1);
  all.push_back(0);  // no thread failed
  const nlohmann::ordered_json doc = {{"druba_certificate", 1},
                                      {"kind", "drb predicates"},
                                      {"digest", digest},
                                      {"threads", first},
                                      {"proof", "invariant"},
                                      {"deadlock", false},
                                      {"every_count", true},
                                      {"thread_ids", "ordered"},
                                      {"abstraction", OrderedInvariantBlock(invariant)},
                                      {"abstract_states", {all}}};
  return doc.dump(1) + "\n";
}

namespace {

// Houdini over `with`'s candidates still `alive`: at fixed counts first (ground queries, fast),
// where most candidates that are not inductive show it, then for every count at once. False when
// undecided; `failure` names a statement whose failure is not excluded, `ctis` the states where
// steps broke what the candidates from `derived` on needed.
// Candidates in [fragile.first, fragile.second) may make a query the solver cannot decide: while
// one is left, each query gets kWeightedWork at most (ProveEveryOrderedCount then starts again
// without them).
bool Settle(const Program& with, std::uint32_t first, std::size_t derived,
            std::pair<std::size_t, std::size_t> fragile, unsigned timeout_ms, LimitWatch* limits,
            std::vector<bool>& alive, std::string& failure, std::vector<Cti>& ctis,
            OrderedFigures& f) {
  // An instance the state budget stopped proposes candidates that only its part of the states
  // keeps; a larger count drops those at fixed counts, where the queries are cheap.
  const bool partial = std::any_of(f.instances.begin(), f.instances.end(),
                                   [](const OrderedFigures::Instance& i) { return !i.complete; });
  const auto many = [&] {
    return partial ||
           static_cast<std::size_t>(std::count(alive.begin(), alive.end(), true)) > kManyCandidates;
  };
  const auto fragile_alive = [&] {
    return std::any_of(alive.begin() + static_cast<std::ptrdiff_t>(fragile.first),
                       alive.begin() + static_cast<std::ptrdiff_t>(fragile.second),
                       [](bool a) { return a; });
  };
  const auto run = [&](std::optional<std::uint32_t> fixed, bool careful) {
    Houdini h(with, fixed, first, alive, derived, timeout_ms, limits, careful ? kWeightedWork : 0);
    const bool decided = h.Initial() && h.Steps(&failure);
    f.queries += h.queries();
    alive = h.alive();
    ctis.insert(ctis.end(), h.ctis().begin(), h.ctis().end());
    if (!decided) f.undecided = h.undecided();
    return decided;
  };
  // Candidates that count threads by rank come with candidates read off few threads that bound a
  // level by those counts (`level <= 2` at 4 threads); two counts more drop those cheaply, before
  // the queries for every count meet them.
  const auto& given = with.abstractions.back().predicates;
  const bool ranks = std::any_of(given.begin(), given.end(), [](const Predicate& p) {
    std::vector<const Expr*> counts;
    drb::RankCounts(*p.expr, counts);
    return !counts.empty();
  });
  const std::uint32_t always = first + (ranks ? 4 : 2);
  const bool careful = fragile_alive();
  f.failure_threads = 0;
  for (std::uint32_t n = first; n < always || (n <= first + kOrderedFixedCounts && many()); ++n) {
    if (!run(n, careful)) return false;
    if (!failure.empty()) {
      f.failure_threads = n;
      return true;
    }
  }
  return run(std::nullopt, careful);
}

// What Strengthen works on.
struct Work {
  const std::string& source;
  const Program& program;
  std::uint32_t first;
  unsigned timeout_ms;
  LimitWatch* limits;
  std::pair<std::size_t, std::size_t> fragile;  // the weighted counts' candidates (see Settle)
};

// Houdini over `candidates` (Settle); then, while a failure is not excluded, candidates that
// block the counterexamples to induction it met (cube_candidates.h) join them, and Houdini runs
// again. Whether it was decided (see Settle), `alive` marking the candidates kept; none when the
// candidates do not parse (`reason` says why).
std::optional<bool> Strengthen(const Work& w, CandidateReader& reader,
                               std::vector<std::string>& candidates, std::vector<bool>& alive,
                               std::string& failure, std::string& reason, OrderedFigures& f) {
  alive.assign(candidates.size(), true);
  std::set<std::string> known(candidates.begin(), candidates.end());
  std::vector<bool> refuted;  // [c - derived]
  const std::size_t derived = candidates.size();
  for (int round = 0;; ++round) {
    Program with;
    try {
      with = ParseProgram(w.source + "\n" + OrderedInvariantBlock(candidates), w.program.file);
    } catch (const InputError& e) {
      reason = std::string("the candidates do not parse: ") + e.what();
      return std::nullopt;
    }
    failure.clear();
    // Houdini's answer is the greatest subset of the candidates that is inductive: each round
    // starts from every blocking candidate, those dropped in a round before too, but not those
    // dropped from a state like a reached one (they most likely do not hold).
    for (std::size_t c = derived; c < candidates.size(); ++c) alive[c] = !refuted[c - derived];
    std::vector<Cti> ctis;
    const bool decided =
        Settle(with, w.first, derived, w.fragile, w.timeout_ms, w.limits, alive, failure, ctis, f);
    if (!decided || failure.empty()) return decided;
    if (round == kBlockRounds) return decided;
    std::size_t added = 0;
    for (const Cti& cti : ctis) {
      bool seen = false;
      for (std::string& text : reader.Blocker().Block(cti.state, &seen)) {
        if (candidates.size() - derived < kMaxBlocking && known.insert(text).second) {
          candidates.push_back(std::move(text));
          alive.push_back(true);
          refuted.push_back(false);
          ++added;
        }
      }
      for (const std::size_t c : cti.dropped) refuted[c - derived] = refuted[c - derived] || seen;
    }
    f.blocking += added;
    f.blocking_rounds += added == 0 ? 0 : 1;
    if (added == 0) return decided;
  }
}

// Houdini over the instances' candidates (Strengthen): without the weighted counts where they
// leave a query undecided, and while a failure is not excluded, again with the second stage's
// candidates of own states (CandidateReader::OwnStateCandidates) in place of the first ones.
// `candidates` and `alive` are those of the last run.
std::optional<bool> Stages(Work w, const std::vector<std::string>& given, CandidateReader& reader,
                           std::vector<std::string>& candidates, std::vector<bool>& alive,
                           std::string& failure, std::string& reason, OrderedFigures& f) {
  candidates = reader.Candidates();
  const std::vector<std::string> weighted = reader.WeightedCandidates();
  const std::pair<std::size_t, std::size_t> fragile{candidates.size(),
                                                    candidates.size() + weighted.size()};
  candidates.insert(candidates.end(), weighted.begin(), weighted.end());
  candidates.insert(candidates.end(), given.begin(), given.end());
  f.given = given.size();
  w.fragile = fragile;
  std::vector<std::string> start = candidates;
  std::optional<bool> decided = Strengthen(w, reader, candidates, alive, failure, reason, f);
  const auto again = [&] {
    candidates = start;
    f.blocking = f.blocking_rounds = 0;
    f.undecided.clear();
    decided = Strengthen(w, reader, candidates, alive, failure, reason, f);
  };
  const auto stopped = [&] { return w.limits != nullptr && w.limits->Check(); };
  // Undecided with weighted counts: from the start without them (the candidates that blocked
  // counterexamples to induction made with them are left behind too).
  const auto undecided_without_weights = [&] {
    if (!decided || *decided || w.fragile.first == w.fragile.second || stopped()) return;
    start.erase(start.begin() + static_cast<std::ptrdiff_t>(w.fragile.first),
                start.begin() + static_cast<std::ptrdiff_t>(w.fragile.second));
    w.fragile = {0, 0};
    again();
  };
  undecided_without_weights();
  if (decided && *decided && !failure.empty() && !stopped()) {
    // A failure not excluded: again with the candidates of live own states in place of the
    // first ones (the weighted and given ones stay).
    const auto base = static_cast<std::ptrdiff_t>(fragile.first);
    std::vector<std::string> second = reader.OwnStateCandidates(w.limits);
    const std::set<std::string> before(start.begin(), start.begin() + base);
    f.own_states = static_cast<std::size_t>(std::count_if(
        second.begin(), second.end(), [&](const std::string& c) { return !before.contains(c); }));
    if (f.own_states > 0) {
      const std::size_t weights = w.fragile.second - w.fragile.first;
      start.erase(start.begin(), start.begin() + base);
      start.insert(start.begin(), second.begin(), second.end());
      if (weights > 0) w.fragile = {second.size(), second.size() + weights};
      again();
      undecided_without_weights();
    }
  }
  return decided;
}

// Explores the instances from `first` threads on (kOrderedInstances of them, one more where rank
// candidates are read) into `reader`; true (with `out`'s verdict a violation) when a thread fails.
bool ExploreInstances(CandidateReader& reader, std::uint32_t first, std::uint32_t last,
                      LimitWatch* limits, OrderedResult& out) {
  OrderedFigures& f = out.figures;
  // After an instance the budget stopped (values that grow without bound), the larger ones are
  // explored too, with an eighth of it: what only three or four threads show (another thread's
  // entry set while one scans) is what keeps candidates true of two threads alone out.
  std::uint64_t budget = kOrderedInstanceStates;
  for (std::uint32_t n = first; n <= last; ++n) {
    // One count more where rank candidates are read: a level's largest value grows with the
    // count, and what only one more thread shows (a candidate that bounds a level, one that
    // orders levels by id) is then cheaper to drop by exploring than with Houdini's queries.
    if (n >= first + kOrderedInstances &&
        (n > first + kOrderedInstances || !reader.CountsByRank())) {
      break;
    }
    f.instances.emplace_back();
    if (reader.Explore(n, limits, f.instances.back(), budget)) {
      out.verdict = Verdict::kViolation;
      out.violation_at = n;
      out.reason = fmt::format("a thread fails at {} threads", n);
      return true;
    }
    if (!f.instances.back().complete) budget = kOrderedInstanceStates / 8;
  }
  return false;
}

}  // namespace

OrderedResult ProveEveryOrderedCount(const std::string& source, const Program& program,
                                     std::uint32_t first, std::uint32_t last, unsigned timeout_ms,
                                     LimitWatch* limits, const std::vector<std::string>& given) {
  const Stopwatch clock;
  OrderedResult out;
  OrderedFigures& f = out.figures;
  CandidateReader reader(program);
  if (ExploreInstances(reader, first, last, limits, out)) {
    f.seconds = clock.Seconds();
    return out;
  }
  if (limits != nullptr && limits->Check()) {  // what is left would not be decided
    out.reason = "the search of the finite instances was stopped (" + *limits->Check() + ")";
    f.seconds = clock.Seconds();
    return out;
  }
  std::vector<std::string> candidates;
  std::vector<bool> alive;
  std::string failure;
  const std::optional<bool> decided =
      Stages({source, program, first, timeout_ms, limits, {0, 0}}, given, reader, candidates, alive,
             failure, out.reason, f);
  if (!decided) return out;  // the candidates do not parse
  f.candidates = candidates.size();
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (alive[c]) out.invariant.push_back(candidates[c]);
  }
  f.dropped = candidates.size() - out.invariant.size();
  f.seconds = clock.Seconds();
  if (!*decided) {
    out.reason =
        "the solver could not decide whether the candidates read off the finite "
        "instances are inductive for every count (" +
        f.undecided + ")";
  } else if (!failure.empty() && f.failure_threads != 0) {
    // Houdini stopped at that count: what is left was not checked for every count.
    out.reason = fmt::format(
        "the {} candidates read off {} to {} threads that hold at {} thread{} do not exclude a "
        "failure at {} there",
        out.invariant.size(), first, f.instances.back().threads, f.failure_threads,
        f.failure_threads == 1 ? "" : "s", failure);
  } else if (!failure.empty()) {
    out.reason = fmt::format(
        "the {} candidates read off {} to {} threads that hold for every count do not exclude a "
        "failure at {}",
        out.invariant.size(), first, f.instances.back().threads, failure);
  } else {
    out.verdict = Verdict::kSafe;
    out.reason = fmt::format(
        "safe for every thread count >= {}: {} invariants read off the program at {} to {} "
        "threads{} hold initially and after every step at every count, and exclude every failure",
        first, out.invariant.size(), first, f.instances.back().threads,
        f.blocking == 0 ? "" : " (and blocking counterexamples to induction)");
  }
  return out;
}

}  // namespace druba::predabs
