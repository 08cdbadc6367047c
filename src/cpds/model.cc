#include "cpds/model.h"

#include <algorithm>
#include <numeric>

namespace druba::cpds {

CpdsModel::CpdsModel(Cpds cpds, InitialState init)
    : cpds_(std::move(cpds)), init_(std::move(init)) {
  initial_.push_back(init_.shared);
  for (const Stack& stack : init_.stacks) initial_.push_back(stacks_.Intern(stack));
  out_.resize(state_width());
  order_.resize(cpds_.threads.size());
  index_.resize(cpds_.threads.size());
  for (std::size_t t = 0; t < cpds_.threads.size(); ++t) {
    const std::vector<Rule>& rules = cpds_.threads[t].rules;
    std::vector<std::uint32_t>& order = order_[t];
    order.resize(rules.size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return Key(rules[a].shared, rules[a].top) < Key(rules[b].shared, rules[b].top);
    });
    for (std::uint32_t i = 0; i < order.size(); ++i) {
      const Rule& rule = rules[order[i]];
      auto [it, inserted] = index_[t].try_emplace(Key(rule.shared, rule.top), i, i + 1);
      if (!inserted) it->second.second = i + 1;
    }
  }
}

std::string StackToString(const Stack& bottom_to_top) {
  if (bottom_to_top.empty()) return "-";
  std::string out;
  for (std::size_t i = 0; i < bottom_to_top.size(); ++i) {
    if (i > 0) out += '.';
    out += std::to_string(bottom_to_top[i]);
  }
  return out;
}

std::string RuleToString(const Rule& rule) {
  std::string out = std::to_string(rule.shared) + " " + std::to_string(rule.top) + " -> " +
                    std::to_string(rule.new_shared) + " ";
  switch (rule.kind) {
    case RuleKind::kOverwrite:
      out += std::to_string(rule.new_top);
      break;
    case RuleKind::kPush:
      out += std::to_string(rule.new_top) + " " + std::to_string(rule.below);
      break;
    case RuleKind::kPop:
      out += "-";
      break;
  }
  return out;
}

std::string CpdsModel::DescribeState(StateView state) const {
  std::string out = std::to_string(state[0]) + "|";
  for (std::size_t t = 0; t < cpds_.threads.size(); ++t) {
    if (t > 0) out += ',';
    out += StackToString(stacks_.Contents(state[1 + t]));
  }
  return out;
}

std::string CpdsModel::DescribeRule(std::uint32_t thread, std::uint32_t action) const {
  const Rule& r = rule(thread, action);
  return RuleToString(r) + " (" + cpds_.file + ":" + std::to_string(r.line) + ")";
}

void CpdsModel::AppendStack(StackId stack, std::vector<std::uint8_t>& out) const {
  std::uint64_t depth = 0;
  for (StackId id = stack; id != StackTable::kEmpty; id = stacks_.Rest(id)) ++depth;
  PutVarint(depth, out);
  for (StackId id = stack; id != StackTable::kEmpty; id = stacks_.Rest(id)) {
    PutVarint(stacks_.Top(id), out);
  }
}

void CpdsModel::Encode(StateView state, std::vector<std::uint8_t>& out) const {
  PutVarint(state[0], out);
  for (std::size_t t = 0; t < cpds_.threads.size(); ++t) AppendStack(state[1 + t], out);
}

void CpdsModel::EncodeCanonical(StateView state, const ThreadSymmetry& symmetry,
                                std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t>& bytes = canonical_bytes_;
  bytes.clear();
  PutVarint(state[0], bytes);
  const std::size_t head = bytes.size();
  std::vector<std::size_t>& ends = canonical_ends_;
  ends.clear();
  for (std::size_t t = 0; t < cpds_.threads.size(); ++t) {
    AppendStack(state[1 + t], bytes);
    ends.push_back(bytes.size());
  }
  AppendSortedParts(bytes, head, ends, symmetry, canonical_order_, out);
}

bool CpdsModel::Decode(std::span<const std::uint8_t> bytes, std::vector<Word>& words) {
  words.assign(state_width(), 0);
  std::size_t at = 0;
  std::uint64_t value = 0;
  if (!GetVarint(bytes, at, value) || value >= cpds_.shared_states) return false;
  words[0] = static_cast<Word>(value);
  Stack stack;
  for (std::size_t t = 0; t < cpds_.threads.size(); ++t) {
    std::uint64_t depth = 0;
    if (!GetVarint(bytes, at, depth) || depth > bytes.size() - at) return false;
    stack.clear();
    for (std::uint64_t i = 0; i < depth; ++i) {
      if (!GetVarint(bytes, at, value) || value > kMaxNumber) return false;
      stack.push_back(static_cast<Symbol>(value));
    }
    std::reverse(stack.begin(), stack.end());  // written top first
    words[1 + t] = stacks_.Intern(stack);
  }
  return at == bytes.size();
}

}  // namespace druba::cpds
