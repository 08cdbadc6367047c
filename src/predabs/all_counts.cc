// The closure test across thread counts (CheckAllThreadCounts, predabs/predicate_abstraction.h),
// with the completion that adds what no run reached.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "predabs/checker.h"
#include "predabs/predicate_abstraction.h"

namespace druba::predabs {

namespace {

// The completion of the closure test across counts (see AllCountsResult::completed): the set
// starts as `reached`; for each action in turn every state of it is expanded, a reached one under
// the actions that disrespect the abstraction, an added one under every action (no run covers
// its respecting steps), with every thread's view in the set as it stands; a successor outside
// it is added unless it has failed. A pass that adds nothing ends it: with no failed successor
// the set is closed under the invariant it was expanded with. Otherwise the break is the first
// step out of the reached set, in the order the test without completion meets them (refinement
// sees the break it saw before), from which a failed state is reached: a step to a state that is
// reachable but that no run reaches, a counter at 2^32 - 1, may lead nowhere bad and then needs
// no predicate. Over its budget, the break is the first step out, as without completion. The
// bundled models' refinement paths depend on this rule: handing refinement the step out that
// begins the path to the first failed state met sent refine.lock_2 into a dead end, and taking
// a step out that fails itself first left model.backoff-lock unknown.
//
// The budget is deterministic: states added, queries and the solver's resource units spent on
// added states and on reached ones after the first pass (the closure test's own work, each
// reached state once, is not the completion's), so that a verdict does not depend on the
// machine's load; time is only a backstop.
class Completion {
 public:
  // What a checker of the added states is made of (its own, under the completion's time budget).
  struct Made {
    const Program& program;
    const AbstractionSpec& spec;
    std::uint32_t min_threads;
    unsigned timeout_ms;
    LimitWatch* limits;
    const SolverLog* log;
  };

  Completion(Checker& checker, const Made& made, const StateStore& reached, AllCountsResult& result)
      : checker_(checker),
        made_(made),
        reached_(reached),
        result_(result),
        set_(std::make_unique<StateStore>(reached.width())) {
    for (std::uint32_t id = 0; id < reached.size(); ++id) set_->FindOrInsert(reached.Get(id));
  }

  void Run() {
    for (bool grew = true; grew; ++pass_) {
      grew = false;
      for (const ActionClass& c : result_.classes) {
        for (std::uint32_t id = 0; id < set_->size(); ++id) {
          if (c.respects && id < reached_.size()) continue;
          const std::vector<Word> from(set_->Get(id).begin(), set_->Get(id).end());
          std::vector<std::vector<Word>> successors;
          std::string why;
          const auto began = std::chrono::steady_clock::now();
          const SolverStats before = result_.stats;
          // The completion's own work: every added state's, and a reached state's after the first
          // pass (the test without completion looks at each once; after that, only because the
          // set grew: 132 s of sense-barrier's refinement when only added states counted).
          const bool own = pass_ > 0 || id >= reached_.size();
          // The closure test's own work takes the views from the reached set, as without completion
          // (the grown set's admit more, and its queries can be far harder: sense-barrier's ran
          // into the 20 s solver timeout); the passes after a growth look at every state again.
          const StateStore& views = own ? *set_ : reached_;
          // A successor already in the grown set needs no more precise query (Enumerate).
          const bool decided =
              For(own).Enumerate(c, StateView(from), &views, &successors, &why, set_.get());
          if (own) {
            spent_time_ += std::chrono::steady_clock::now() - began;
            spent_queries_ += result_.stats.queries - before.queries;
            spent_work_ += result_.stats.work - before.work;
          }
          if (!decided) {
            if (own) return Break(false);  // out of budget
            result_.reason = why;
            return;
          }
          for (const auto& to : successors) {
            ++result_.closure_checks;
            const std::optional<std::uint32_t> known = set_->Find(StateView(to));
            if (known && *known < reached_.size()) continue;
            if (to.back() != 0) {
              steps_.push_back({id, kFailed, &c, to});
              // The first step out fails: no completion can help (as without one).
              if (steps_.size() == 1) return Break(true);
              if (!failed_) Failed();
              continue;
            }
            if (known) {
              steps_.push_back({id, *known, &c, {}});
            } else {
              steps_.push_back({id, static_cast<std::uint32_t>(set_->size()), &c, {}});
              set_->FindOrInsert(StateView(to));
              grew = true;
            }
          }
          if (Spent()) return Break(false);
        }
      }
    }
    if (failed_) return Break(true);
    result_.closed = true;
    if (set_->size() > reached_.size()) result_.completed = std::move(set_);
  }

 private:
  static constexpr std::uint32_t kFailed = 0xFFFFFFFFU;
  struct Step {
    std::uint32_t from = 0;
    std::uint32_t to = 0;  // kFailed: a failed successor (`failed`)
    const ActionClass* by = nullptr;
    std::vector<Word> failed;
  };

  // The checker of the closure test's own work; of the completion's (`own`), a checker of its
  // own (made when first needed) whose queries stop when the completion's work or time is up
  // (its time watch is made again before each state with what is left; one state's successors
  // may take many queries, and the solver reads both per query).
  Checker& For(bool own) {
    if (!own) return checker_;
    double seconds = std::chrono::duration<double>(kMaxCompletionTime - spent_time_).count();
    if (made_.limits != nullptr) seconds = std::min(seconds, made_.limits->RemainingSeconds());
    budget_.emplace(ResourceLimits{std::max(seconds, 0.001), 0});
    if (!added_checker_) {
      added_checker_.emplace(made_.program, made_.spec, std::nullopt, made_.min_threads,
                             made_.timeout_ms, &result_.stats, &*budget_, made_.log);
      added_checker_->BudgetWork(failed_ ? failed_->second : kMaxCompletionWork);
    }
    return *added_checker_;
  }

  // Whether the completion is over its budget (its own work, as Run counts it). Once a state has
  // failed the proof is lost: the rest only tells which step out leads there, and may cost as much
  // again as the completion so far.
  bool Spent() const {
    return set_->size() >= reached_.size() + std::max(kMaxCompletion, reached_.size()) ||
           spent_queries_ > (failed_ ? 2 * failed_->first : kMaxCompletionQueries) ||
           spent_work_ > (failed_ ? 2 * failed_->second : kMaxCompletionWork) ||
           spent_time_ > kMaxCompletionTime;
  }
  void Failed() {
    failed_ = {spent_queries_, spent_work_};
    if (added_checker_) added_checker_->BudgetWork(spent_work_);
  }

  // The break: with `failed`, the first step out of the reached set (in the order the test
  // without completion meets them) known to lead to a failed state; without, the first step out.
  void Break(bool failed) {
    std::vector<bool> leads(set_->size(), !failed);
    for (bool more = failed; more;) {
      more = false;
      for (const Step& s : steps_) {
        if (s.from >= reached_.size() && !leads[s.from] && (s.to == kFailed || leads[s.to])) {
          more = leads[s.from] = true;
        }
      }
    }
    const auto exit = std::find_if(steps_.begin(), steps_.end(), [&](const Step& s) {
      return s.from < reached_.size() && (s.to == kFailed || leads[s.to]);
    });
    const StateView source = reached_.Get(exit->from);
    const StateView target = exit->to == kFailed ? StateView(exit->failed) : set_->Get(exit->to);
    const ActionClass& by = *exit->by;
    result_.failure = ClosureFailure{{source.begin(), source.end()},
                                     by.other ? kOtherThread : by.thread,
                                     by.stmt,
                                     {target.begin(), target.end()},
                                     {}};
    const bool out = set_->size() > reached_.size() && exit->to != kFailed;
    result_.reason =
        "with the thread count left symbolic, the reached abstract states are not "
        "closed under " +
        checker_.DescribeClass(by) +
        (!out      ? std::string()
         : failed_ ? std::string(", and closing the set met a failed state")
                   : std::string(", and closing the set went beyond its budget"));
    result_.completed = std::move(set_);
  }

  Checker& checker_;
  Made made_;
  std::optional<LimitWatch> budget_;
  std::optional<Checker> added_checker_;
  const StateStore& reached_;
  AllCountsResult& result_;
  std::unique_ptr<StateStore> set_;
  std::vector<Step> steps_;  // every step out of the reached states or between added ones
  std::chrono::steady_clock::duration spent_time_{};
  std::uint64_t spent_queries_ = 0;
  std::uint64_t spent_work_ = 0;
  std::uint32_t pass_ = 0;  // passes over the set done
  // When the first failed state was met: the completion's queries and work so far.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> failed_;
};

}  // namespace

AllCountsResult CheckAllThreadCounts(const Program& program, const AbstractionSpec& spec,
                                     const StateStore& reached, std::uint32_t min_threads,
                                     unsigned timeout_ms, LimitWatch* limits,
                                     const SolverLog* log) {
  AllCountsResult result;
  if (!program.symmetric || !spec.symmetric) {
    result.reason =
        "the program is not symmetric (several thread templates, `self`, or a fixed "
        "thread index), so druba cannot argue about every thread count";
    return result;
  }
  Checker checker(program, spec, std::nullopt, min_threads, timeout_ms, &result.stats, limits, log);
  std::string why;
  std::vector<std::vector<Word>> initial;
  if (!checker.InitialStates(&initial, &why)) {
    result.reason = why;
    return result;
  }
  for (auto& a : initial) {
    if (!reached.Find(StateView(a))) result.bad_initial.push_back(std::move(a));
  }
  if (!result.bad_initial.empty()) {
    result.reason =
        "an initial abstract state of some thread count >= " + std::to_string(min_threads) +
        " was not reached: " + DescribeAbstract(program, spec, StateView(result.bad_initial[0]));
    return result;
  }
  result.classes = checker.Classify();
  Completion(checker, {program, spec, min_threads, timeout_ms, limits, log}, reached, result).Run();
  return result;
}

}  // namespace druba::predabs
