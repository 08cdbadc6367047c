#include "cpds/below.h"

#include <algorithm>
#include <tuple>

#include "explore/portable.h"

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
  Solver(const Cpds& cpds, std::uint32_t thread, const VisibleFacts* visible)
      : thread_(thread), rules_(cpds.threads[thread].rules), visible_(visible) {
    for (std::uint32_t i = 0; i < rules_.size(); ++i) {
      by_lhs_[Key(rules_[i].shared, rules_[i].top)].push_back(i);
    }
    if (visible != nullptr) return;
    // Every tuple visible: any rule of another thread may move g.
    for (std::uint32_t other = 0; other < cpds.threads.size(); ++other) {
      if (other == thread) continue;
      for (const Rule& rule : cpds.threads[other].rules) {
        if (rule.new_shared != rule.shared) any_env_[rule.shared].insert(rule.new_shared);
      }
    }
  }

  void AddTop(Shared g, Symbol x, Symbol y) {
    if (visible_ != nullptr && !visible_->Visible(thread_, g, x)) return;
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
      // (E)
      const absl::flat_hash_set<Shared>* moves = nullptr;
      if (visible_ != nullptr) {
        moves = visible_->Moves(thread_, f.g, f.x);
      } else if (const auto it = any_env_.find(f.g); it != any_env_.end()) {
        moves = &it->second;
      }
      if (moves != nullptr) {
        for (const Shared g2 : *moves) AddTop(g2, f.x, f.y);
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

  std::uint32_t thread_;
  const std::vector<Rule>& rules_;
  absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>> by_lhs_;
  const VisibleFacts* visible_;                                              // null: all visible
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

VisibleFacts::VisibleFacts(const Cpds& cpds)
    : cpds_(&cpds),
      lhs_(cpds.threads.size()),
      visible_(cpds.threads.size()),
      env_(cpds.threads.size()) {
  for (std::uint32_t t = 0; t < cpds.threads.size(); ++t) {
    const auto& rules = cpds.threads[t].rules;
    for (std::uint32_t i = 0; i < rules.size(); ++i) {
      lhs_[t][Key(rules[i].shared, rules[i].top)].push_back(i);
    }
  }
}

VisibleFacts VisibleFacts::OfTopK(const Cpds& cpds, const StateStore& set, std::uint32_t k) {
  VisibleFacts facts(cpds);
  const std::size_t n = cpds.threads.size();
  std::vector<Symbol> tuple(1 + n);
  for (std::uint32_t id = 0; id < set.size(); ++id) {
    const StateView a = set.Get(id);
    tuple[0] = a[0];
    for (std::size_t t = 0; t < n; ++t) tuple[1 + t] = a[1 + t * k];  // kNone == kBottom
    facts.Add(tuple.data());
  }
  return facts;
}

void VisibleFacts::Add(const Symbol* tuple) {
  const std::size_t n = lhs_.size();
  const Shared g = tuple[0];
  // The rules enabled in the tuple, found once per thread (not once per pair of threads).
  enabled_.assign(n, nullptr);
  bool any = false;
  for (std::uint32_t other = 0; other < n; ++other) {
    if (tuple[1 + other] == kBottom) continue;
    const auto it = lhs_[other].find(Key(g, tuple[1 + other]));
    if (it == lhs_[other].end()) continue;
    enabled_[other] = &it->second;
    any = true;
  }
  for (std::uint32_t thread = 0; thread < n; ++thread) {
    const Symbol x = tuple[1 + thread];
    if (x == kBottom) continue;
    visible_[thread].insert(Key(g, x));
    if (!any) continue;
    for (std::uint32_t other = 0; other < n; ++other) {
      if (other == thread || enabled_[other] == nullptr) continue;
      for (const std::uint32_t i : *enabled_[other]) {
        const Shared g2 = cpds_->threads[other].rules[i].new_shared;
        if (g2 != g) env_[thread][Key(g, x)].insert(g2);
      }
    }
  }
}

void VisibleFacts::Merge(const VisibleFacts& other) {
  for (std::size_t t = 0; t < visible_.size(); ++t) {
    visible_[t].insert(other.visible_[t].begin(), other.visible_[t].end());
    for (const auto& [key, targets] : other.env_[t])
      env_[t][key].insert(targets.begin(), targets.end());
  }
}

// Per thread: the number of visible pairs and the pairs; the number of (E) entries and each as
// its pair, the number of targets and the targets.
void VisibleFacts::Write(std::vector<std::uint8_t>& out) const {
  for (std::size_t t = 0; t < visible_.size(); ++t) {
    PutVarint(visible_[t].size(), out);
    for (const std::uint64_t key : visible_[t]) PutVarint(key, out);
    PutVarint(env_[t].size(), out);
    for (const auto& [key, targets] : env_[t]) {
      PutVarint(key, out);
      PutVarint(targets.size(), out);
      for (const Shared g2 : targets) PutVarint(g2, out);
    }
  }
}

bool VisibleFacts::Read(std::span<const std::uint8_t> bytes) {
  std::size_t at = 0;
  std::uint64_t count = 0;
  std::uint64_t key = 0;
  std::uint64_t value = 0;
  for (std::size_t t = 0; t < visible_.size(); ++t) {
    if (!GetVarint(bytes, at, count) || count > bytes.size() - at) return false;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (!GetVarint(bytes, at, key)) return false;
      visible_[t].insert(key);
    }
    if (!GetVarint(bytes, at, count) || count > bytes.size() - at) return false;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t targets = 0;
      if (!GetVarint(bytes, at, key) || !GetVarint(bytes, at, targets) ||
          targets > bytes.size() - at) {
        return false;
      }
      auto& into = env_[t][key];
      for (std::uint64_t j = 0; j < targets; ++j) {
        if (!GetVarint(bytes, at, value) || value > 0xFFFFFFFFU) return false;
        into.insert(static_cast<Shared>(value));
      }
    }
  }
  return at == bytes.size();
}

MayLieBelow::MayLieBelow(const Cpds& cpds, const InitialState& init, const VisibleFacts* visible) {
  top_.resize(cpds.threads.size());
  deep_.resize(cpds.threads.size());
  for (std::uint32_t t = 0; t < cpds.threads.size(); ++t) Solve(cpds, init, t, visible);
}

void MayLieBelow::Solve(const Cpds& cpds, const InitialState& init, std::uint32_t thread,
                        const VisibleFacts* visible) {
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
