#include "support/reference.h"

#include <deque>

namespace druba::testing {

using cpds::Rule;
using cpds::RuleKind;

std::vector<PlainState> PlainSuccessors(const cpds::Cpds& cpds, const PlainState& s,
                                        std::uint32_t t) {
  std::vector<PlainState> out;
  const cpds::Stack& stack = s.stacks[t];
  if (!stack.empty()) {
    for (const Rule& rule : cpds.threads[t].rules) {
      if (rule.shared != s.shared || rule.top != stack.back()) continue;
      PlainState next = s;
      next.shared = rule.new_shared;
      cpds::Stack& w = next.stacks[t];
      w.pop_back();
      if (rule.kind == RuleKind::kOverwrite) w.push_back(rule.new_top);
      if (rule.kind == RuleKind::kPush) {
        w.push_back(rule.below);
        w.push_back(rule.new_top);
      }
      out.push_back(std::move(next));
    }
  }
  if (out.empty()) out.push_back(s);  // blocked: a stutter step
  return out;
}

Def1Reference::Def1Reference(const cpds::Cpds& cpds, const cpds::InitialState& init,
                             std::uint32_t max_rounds, std::uint32_t max_delays)
    : n_(static_cast<std::uint32_t>(cpds.threads.size())) {
  const std::uint32_t max_slots = n_ * max_rounds;
  Node start{{init.shared, init.stacks}, n_ - 1, 0, 0};
  std::deque<Node> work{start};
  nodes_.insert(start);
  while (!work.empty()) {
    const Node node = work.front();
    work.pop_front();
    for (std::uint32_t j = 0; j < n_; ++j) {
      // Def. 1: delays between consecutive steps f(i-1), f(i) are (f(i) - f(i-1) - 1) mod n,
      // and f(0) delays before the first step (as if the previous step were thread n-1's).
      const std::uint32_t cost = (j + n_ - node.last - 1) % n_;
      const std::uint32_t delays = node.delays + cost;
      const std::uint32_t steps = node.steps + 1;
      if (delays > max_delays || steps + delays > max_slots) continue;
      for (PlainState& next : PlainSuccessors(cpds, node.state, j)) {
        Node child{std::move(next), j, steps, delays};
        if (nodes_.insert(child).second) work.push_back(child);
      }
    }
  }
}

std::set<PlainState> Def1Reference::Reach(std::uint32_t rounds, std::uint32_t delays) const {
  std::set<PlainState> out;
  for (const Node& node : nodes_) {
    if (node.delays <= delays && node.steps + node.delays <= n_ * rounds) out.insert(node.state);
  }
  return out;
}

std::optional<std::set<PlainState>> FreeReach(const cpds::Cpds& cpds,
                                              const cpds::InitialState& init, std::size_t cap) {
  std::set<PlainState> seen;
  std::deque<PlainState> work;
  PlainState start{init.shared, init.stacks};
  seen.insert(start);
  work.push_back(start);
  while (!work.empty()) {
    const PlainState s = work.front();
    work.pop_front();
    for (std::uint32_t t = 0; t < cpds.threads.size(); ++t) {
      for (PlainState& next : PlainSuccessors(cpds, s, t)) {
        if (seen.insert(next).second) {
          if (seen.size() > cap) return std::nullopt;
          work.push_back(std::move(next));
        }
      }
    }
  }
  return seen;
}

std::pair<cpds::Cpds, cpds::InitialState> RandomCpds(std::mt19937& rng,
                                                     const RandomCpdsOptions& options) {
  auto pick = [&](std::uint32_t below) {
    return std::uniform_int_distribution<std::uint32_t>(0, below - 1)(rng);
  };
  cpds::Cpds cpds;
  cpds.file = "random.pds";
  cpds.shared_states = 1 + pick(options.max_shared);
  const std::uint32_t n = 1 + pick(options.max_threads);
  cpds::InitialState init;
  init.shared = pick(cpds.shared_states);
  for (std::uint32_t t = 0; t < n; ++t) {
    cpds::Pda pda;
    pda.lo = 0;
    pda.hi = options.symbols - 1;
    const std::uint32_t rules = 1 + pick(options.max_rules);
    for (std::uint32_t i = 0; i < rules; ++i) {
      Rule rule;
      rule.shared = pick(cpds.shared_states);
      rule.top = pick(options.symbols);
      rule.new_shared = pick(cpds.shared_states);
      const std::uint32_t kind = pick(options.recursion ? 3 : 2);
      rule.kind = kind == 0 ? RuleKind::kOverwrite : kind == 1 ? RuleKind::kPop : RuleKind::kPush;
      rule.new_top = pick(options.symbols);
      rule.below = pick(options.symbols);
      pda.rules.push_back(rule);
    }
    cpds.threads.push_back(pda);
    cpds::Stack stack;
    const std::uint32_t depth = pick(8) == 0 ? 0 : 1 + pick(2);
    for (std::uint32_t j = 0; j < depth; ++j) stack.push_back(pick(options.symbols));
    init.stacks.push_back(stack);
  }
  return {cpds, init};
}

std::string AlphaOf(const PlainState& s, std::uint32_t k) {
  std::string out = std::to_string(s.shared) + "|";
  for (std::size_t t = 0; t < s.stacks.size(); ++t) {
    if (t > 0) out += ',';
    const auto& w = s.stacks[t];
    const std::size_t from = w.size() > k ? w.size() - k : 0;
    if (from == w.size()) out += '-';
    for (std::size_t j = from; j < w.size(); ++j) {
      if (j > from) out += '.';
      out += std::to_string(w[j]);
    }
  }
  return out;
}

}  // namespace druba::testing
