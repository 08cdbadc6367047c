#include "cpds/top_k.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace druba::cpds {

TopKAbstraction::TopKAbstraction(const CpdsModel& model, std::uint32_t k,
                                 std::optional<TargetPattern> target)
    : model_(model), k_(k), n_(model.num_threads()), target_(std::move(target)) {
  if (k_ == 0) throw std::invalid_argument("top-K abstraction: K must be at least 1");
  if (target_ && !CheckTarget(*target_, k_).empty()) {
    throw std::invalid_argument(CheckTarget(*target_, k_));
  }
  pops_.resize(n_);
  rules_.resize(n_);
  for (std::uint32_t t = 0; t < n_; ++t) {
    const std::vector<Rule>& rules = model.cpds().threads[t].rules;
    for (std::uint32_t i = 0; i < rules.size(); ++i) {
      rules_[t][Key(rules[i].shared, rules[i].top)].push_back(i);
      if (rules[i].kind == RuleKind::kPop)
        pops_[t][Key(rules[i].shared, rules[i].top)].push_back(i);
    }
  }
}

VisibleFacts TopKAbstraction::Facts(const StateStore& reached) const {
  return VisibleFacts::OfTopK(model_.cpds(), reached, k_);
}

TopKAbstraction::ClosureOracle TopKAbstraction::MakeClosureOracle(const StateStore& reached) const {
  return MakeOracle(Facts(reached));
}

TopKAbstraction::ClosureOracle TopKAbstraction::MakeOracle(const VisibleFacts& facts) const {
  return ClosureOracle(*this, &facts);
}

TopKAbstraction::ClosureOracle TopKAbstraction::MakeStaticOracle() const {
  return ClosureOracle(*this, nullptr);
}

ThreadSymmetry TopKAbstraction::Symmetry() const {
  using RuleKey = std::tuple<Shared, Symbol, RuleKind, Shared, Symbol, Symbol>;
  std::map<std::pair<std::vector<RuleKey>, Stack>, std::vector<std::uint32_t>> by_code;
  for (std::uint32_t t = 0; t < n_; ++t) {
    std::vector<RuleKey> rules;
    for (const Rule& r : model_.cpds().threads[t].rules) {
      // A push's `below` and an overwrite's `new_top` are the only operands of their kinds.
      rules.emplace_back(r.shared, r.top, r.kind, r.new_shared,
                         r.kind == RuleKind::kPop ? 0 : r.new_top,
                         r.kind == RuleKind::kPush ? r.below : 0);
    }
    std::sort(rules.begin(), rules.end());
    rules.erase(std::unique(rules.begin(), rules.end()), rules.end());
    by_code[{std::move(rules), model_.init().stacks[t]}].push_back(t);
  }
  ThreadSymmetry out{1, k_, {}};
  for (auto& [code, threads] : by_code) {
    if (threads.size() > 1) out.classes.push_back(std::move(threads));
  }
  std::sort(out.classes.begin(), out.classes.end());
  return out;
}

std::string TopKAbstraction::CheckTarget(const TargetPattern& target, std::uint32_t k) {
  for (std::size_t t = 0; t < target.stacks.size(); ++t) {
    if (target.stacks[t] && target.stacks[t]->size() > k) {
      return "the target names " + std::to_string(target.stacks[t]->size()) +
             " symbols of thread " + std::to_string(t) + "'s stack, but the abstraction sees " +
             std::to_string(k) + " (use --top " + std::to_string(target.stacks[t]->size()) + ")";
    }
  }
  return {};
}

bool TopKAbstraction::Violates(StateView abstract) const {
  return MatchesTarget(abstract) || (deadlock_ && Deadlocked(abstract));
}

bool TopKAbstraction::Deadlocked(StateView abstract) const {
  bool unfinished = false;
  for (std::uint32_t t = 0; t < n_; ++t) {
    const Word top = abstract[1 + std::size_t{t} * k_];
    if (top == kNone) continue;
    unfinished = true;
    if (model_.HasRule(t, abstract[0], top)) return false;
  }
  return unfinished;
}

bool TopKAbstraction::MatchesTarget(StateView abstract) const {
  if (!target_) return false;
  if (target_->shared && *target_->shared != abstract[0]) return false;
  for (std::uint32_t t = 0; t < n_; ++t) {
    const auto& pattern = target_->stacks[t];
    if (!pattern) continue;
    const Word* slots = abstract.data() + 1 + std::size_t{t} * k_;
    if (pattern->empty()) {
      if (slots[0] != kNone) return false;
      continue;
    }
    const std::size_t m = pattern->size();
    for (std::size_t j = 0; j < m; ++j) {
      if (slots[j] != (*pattern)[m - 1 - j]) return false;
    }
  }
  return true;
}

std::string TopKAbstraction::Describe(StateView abstract) const {
  std::string out = std::to_string(abstract[0]) + "|";
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (t > 0) out += ',';
    const Word* slots = abstract.data() + 1 + std::size_t{t} * k_;
    Stack visible;
    for (std::uint32_t j = k_; j-- > 0;) {
      if (slots[j] != kNone) visible.push_back(slots[j]);
    }
    out += StackToString(visible);
  }
  return out;
}

std::string TopKAbstraction::DescribeAction(std::uint32_t thread, std::uint32_t action) const {
  if (action == kStutter) return "thread " + std::to_string(thread) + " stutter";
  return "thread " + std::to_string(thread) + " rule " + model_.DescribeRule(thread, action);
}

SandwichSetup MakeSandwich(const TopKAbstraction& abs, bool joint, bool has_property) {
  SandwichSetup setup;
  // The domain is finite, so the passes end; the memory and time limits bound them first.
  constexpr std::size_t kMaxStates = std::size_t{1} << 31;
  setup.upper_bound = [&abs, joint](std::unique_ptr<StateStore> initial) {
    if (joint) {
      return MakeKleeneUpperBound(
          std::move(initial), [&abs](const StateStore& s) { return abs.MakeClosureOracle(s); },
          kMaxStates);
    }
    return MakeKleeneUpperBound(
        std::move(initial), [&abs](const StateStore&) { return abs.MakeStaticOracle(); },
        kMaxStates);
  };
  setup.relation = joint ? "joint" : "static";
  setup.symmetry = abs.Symmetry();
  // Concrete states are [shared, stack id of each thread]: the same classes, one word a thread
  // (equal stacks have equal ids).
  setup.concrete_symmetry = ThreadSymmetry{1, 1, setup.symmetry.classes};
  setup.has_property = has_property;
  return setup;
}

}  // namespace druba::cpds
