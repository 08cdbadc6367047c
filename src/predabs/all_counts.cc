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
// no predicate. Over its budget, the break is the first step out, as without completion.
class Completion {
 public:
  Completion(Checker& checker, const StateStore& reached, AllCountsResult& result)
      : checker_(checker),
        reached_(reached),
        result_(result),
        set_(std::make_unique<StateStore>(reached.width())) {
    for (std::uint32_t id = 0; id < reached.size(); ++id) set_->FindOrInsert(reached.Get(id));
  }

  void Run() {
    bool spent = false;
    for (bool grew = true; grew && !spent;) {
      grew = false;
      for (const ActionClass& c : result_.classes) {
        for (std::uint32_t id = 0; id < set_->size() && !spent; ++id) {
          if (c.respects && id < reached_.size()) continue;
          const std::vector<Word> from(set_->Get(id).begin(), set_->Get(id).end());
          std::vector<std::vector<Word>> successors;
          std::string why;
          if (!checker_.Enumerate(c, StateView(from), set_.get(), &successors, &why)) {
            if (id >= reached_.size()) return Break(true);  // an added state's: out of budget
            result_.reason = why;
            return;
          }
          for (const auto& to : successors) {
            ++result_.closure_checks;
            const std::optional<std::uint32_t> known = set_->Find(StateView(to));
            if (known && *known < reached_.size()) continue;
            if (to.back() != 0) {
              if (!failed_) failed_ = Elapsed();
              steps_.push_back({id, kFailed, &c, to});
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
          spent = Spent();
        }
      }
    }
    if (spent) return Break(true);
    if (std::any_of(steps_.begin(), steps_.end(), [](const Step& s) { return s.to == kFailed; })) {
      return Break(false);
    }
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

  // Whether the completion is over its budget, counted from its first step out of the reached
  // set (the closure test's own work before it is not the completion's).
  bool Spent() {
    if (steps_.empty()) {
      start_ = std::chrono::steady_clock::now();
      queries_ = result_.stats.queries;
      return false;
    }
    // Once a state has failed, the proof is lost: the rest only tells which step out leads
    // there, and may cost as much again as the completion so far.
    const auto [time, queries] = Elapsed();
    return set_->size() >= reached_.size() + std::max(kMaxCompletion, reached_.size()) ||
           queries > (failed_ ? 2 * failed_->second : kMaxCompletionQueries) ||
           time > (failed_ ? 2 * failed_->first : kMaxCompletionTime);
  }
  std::pair<std::chrono::steady_clock::duration, std::uint64_t> Elapsed() const {
    return {std::chrono::steady_clock::now() - start_, result_.stats.queries - queries_};
  }

  void Break(bool spent) {
    // What leads to a failed state (over budget: anything).
    std::vector<bool> leads(set_->size(), spent);
    for (bool more = true; more && !spent;) {
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
        (!out                ? std::string()
         : spent && !failed_ ? std::string(", and closing the set went beyond its budget")
                             : std::string(", and closing the set met a failed state"));
    result_.completed = std::move(set_);
  }

  Checker& checker_;
  const StateStore& reached_;
  AllCountsResult& result_;
  std::unique_ptr<StateStore> set_;
  std::vector<Step> steps_;  // every step out of the reached states or between added ones
  std::chrono::steady_clock::time_point start_;
  std::uint64_t queries_ = 0;
  // When the first failed state was met: the completion's time and queries so far.
  std::optional<std::pair<std::chrono::steady_clock::duration, std::uint64_t>> failed_;
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
  Completion(checker, reached, result).Run();
  return result;
}

}  // namespace druba::predabs
