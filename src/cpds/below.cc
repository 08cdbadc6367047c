#include "cpds/below.h"

#include <algorithm>
#include <tuple>

#include <absl/container/flat_hash_set.h>

namespace druba::cpds {
namespace {

struct Fact {
  Shared g;
  Symbol x;
  Symbol y;
};

// Semi-naive evaluation of the rules in below.h for one thread.
class Solver {
 public:
  Solver(const Cpds& cpds, std::uint32_t thread, const std::vector<Symbol>* visible)
      : rules_(cpds.threads[thread].rules), filtered_(visible != nullptr) {
    for (std::uint32_t i = 0; i < rules_.size(); ++i) {
      by_lhs_[Key(rules_[i].shared, rules_[i].top)].push_back(i);
    }
    const std::size_t n = cpds.threads.size();
    if (visible == nullptr) {  // every tuple visible: any rule of another thread may move g
      for (std::uint32_t other = 0; other < n; ++other) {
        if (other == thread) continue;
        for (const Rule& rule : cpds.threads[other].rules) {
          if (rule.new_shared != rule.shared) any_env_[rule.shared].insert(rule.new_shared);
        }
      }
      return;
    }
    std::vector<absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>>> lhs(n);
    for (std::uint32_t other = 0; other < n; ++other) {
      const auto& rules = cpds.threads[other].rules;
      for (std::uint32_t i = 0; i < rules.size(); ++i) {
        lhs[other][Key(rules[i].shared, rules[i].top)].push_back(i);
      }
    }
    for (std::size_t at = 0; at + n + 1 <= visible->size(); at += n + 1) {
      const Symbol* tuple = visible->data() + at;
      const Shared g = tuple[0];
      const Symbol x = tuple[1 + thread];
      if (x == MayLieBelow::kBottom) continue;
      visible_.insert(Key(g, x));
      for (std::uint32_t other = 0; other < n; ++other) {
        if (other == thread || tuple[1 + other] == MayLieBelow::kBottom) continue;
        const auto it = lhs[other].find(Key(g, tuple[1 + other]));
        if (it == lhs[other].end()) continue;
        for (const std::uint32_t i : it->second) {
          const Shared g2 = cpds.threads[other].rules[i].new_shared;
          if (g2 != g) env_[Key(g, x)].insert(g2);
        }
      }
    }
  }

  void AddTop(Shared g, Symbol x, Symbol y) {
    if (filtered_ && !visible_.contains(Key(g, x))) return;
    if (top_.insert(std::make_tuple(g, x, y)).second) work_.push_back({g, x, y});
  }

  void AddDeep(Symbol u, Symbol v) {
    if (!deep_[u].insert(v).second) return;
    if (const auto it = exposed_.find(u); it != exposed_.end()) {  // (Q), late Deep fact
      const std::vector<Shared> targets(it->second.begin(), it->second.end());
      for (const Shared g2 : targets) AddTop(g2, u, v);
    }
  }

  void Run() {
    while (!work_.empty()) {
      const Fact f = work_.back();
      work_.pop_back();
      const auto& env = filtered_ ? env_ : any_env_;  // (E)
      if (const auto it = env.find(filtered_ ? Key(f.g, f.x) : f.g); it != env.end()) {
        for (const Shared g2 : it->second) AddTop(g2, f.x, f.y);
      }
      const auto it = by_lhs_.find(Key(f.g, f.x));
      if (it == by_lhs_.end()) continue;
      for (const std::uint32_t i : it->second) {
        const Rule& rule = rules_[i];
        switch (rule.kind) {
          case RuleKind::kOverwrite:
            AddTop(rule.new_shared, rule.new_top, f.y);
            break;               // (O)
          case RuleKind::kPush:  // (P)
            AddTop(rule.new_shared, rule.new_top, rule.below);
            AddDeep(rule.below, f.y);
            break;
          case RuleKind::kPop:  // (Q)
            if (f.y == MayLieBelow::kBottom) break;
            if (exposed_[f.y].insert(rule.new_shared).second) {
              const auto deep = deep_.find(f.y);
              if (deep == deep_.end()) break;
              const std::vector<Symbol> below(deep->second.begin(), deep->second.end());
              for (const Symbol z : below) AddTop(rule.new_shared, f.y, z);
            }
            break;
        }
      }
    }
  }

  const absl::flat_hash_set<std::tuple<Shared, Symbol, Symbol>>& top() const { return top_; }
  const absl::flat_hash_map<Symbol, absl::flat_hash_set<Symbol>>& deep() const { return deep_; }

 private:
  static std::uint64_t Key(std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint64_t>(a) << 32 | b;
  }

  const std::vector<Rule>& rules_;
  absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>> by_lhs_;
  bool filtered_;
  absl::flat_hash_set<std::uint64_t> visible_;                               // (g, x) visible
  absl::flat_hash_map<std::uint64_t, absl::flat_hash_set<Shared>> env_;      // (g, x) -> g2
  absl::flat_hash_map<std::uint64_t, absl::flat_hash_set<Shared>> any_env_;  // g -> g2
  absl::flat_hash_set<std::tuple<Shared, Symbol, Symbol>> top_;
  absl::flat_hash_map<Symbol, absl::flat_hash_set<Symbol>> deep_;
  absl::flat_hash_map<Symbol, absl::flat_hash_set<Shared>> exposed_;  // y -> g' of pops exposing y
  std::vector<Fact> work_;
};

template <class Map>
void SortAll(Map& map) {
  for (auto& [key, list] : map) std::sort(list.begin(), list.end());
}

}  // namespace

MayLieBelow::MayLieBelow(const Cpds& cpds, const InitialState& init,
                         const std::vector<Symbol>* visible) {
  top_.resize(cpds.threads.size());
  deep_.resize(cpds.threads.size());
  for (std::uint32_t t = 0; t < cpds.threads.size(); ++t) Solve(cpds, init, t, visible);
}

void MayLieBelow::Solve(const Cpds& cpds, const InitialState& init, std::uint32_t thread,
                        const std::vector<Symbol>* visible) {
  Solver solver(cpds, thread, visible);
  const Stack& stack = init.stacks[thread];
  for (std::size_t j = 0; j < stack.size(); ++j) {  // (I)
    const Symbol under = j == 0 ? kBottom : stack[j - 1];
    if (j + 1 == stack.size()) {
      solver.AddTop(init.shared, stack[j], under);
    } else {
      solver.AddDeep(stack[j], under);
    }
  }
  solver.Run();
  for (const auto& [g, x, y] : solver.top()) top_[thread][Key(g, x)].push_back(y);
  for (const auto& [u, vs] : solver.deep()) deep_[thread][u].assign(vs.begin(), vs.end());
  SortAll(top_[thread]);
  SortAll(deep_[thread]);
}

const std::vector<Symbol>& MayLieBelow::BelowTop(std::uint32_t thread, Shared shared,
                                                 Symbol top) const {
  const auto it = top_[thread].find(Key(shared, top));
  return it == top_[thread].end() ? none_ : it->second;
}

const std::vector<Symbol>& MayLieBelow::BelowDeep(std::uint32_t thread, Symbol symbol) const {
  const auto it = deep_[thread].find(symbol);
  return it == deep_[thread].end() ? none_ : it->second;
}

}  // namespace druba::cpds
