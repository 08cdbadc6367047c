// A CPDS as an explorable model: state words are [shared, stack id of thread 0, ..., of n-1].
// The action of a step is the index of the rule in its thread's block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cpds/cpds.h"
#include "cpds/stack_table.h"
#include "explore/model.h"
#include "explore/portable.h"
#include "explore/state_store.h"

namespace druba::cpds {

class CpdsModel {
 public:
  CpdsModel(Cpds cpds, InitialState init);

  std::uint32_t num_threads() const { return static_cast<std::uint32_t>(cpds_.threads.size()); }
  std::size_t state_width() const { return 1 + cpds_.threads.size(); }

  template <class F>
  void ForEachInitial(F&& yield) {
    yield(StateView(initial_));
  }

  template <class F>
  void ForEachSuccessor(StateView state, std::uint32_t thread, F&& yield) {
    Successors(state, thread, out_, yield);
  }

  // A successor function of its own for one thread of the parallel expansion (--jobs): workers
  // share the rules and the stack table (whose Push is thread-safe), each with its own buffer.
  class Worker {
   public:
    explicit Worker(CpdsModel& model) : model_(&model), out_(model.state_width()) {}
    template <class F>
    void ForEachSuccessor(StateView state, std::uint32_t thread, F&& yield) {
      model_->Successors(state, thread, out_, yield);
    }

   private:
    CpdsModel* model_;
    std::vector<Word> out_;
  };

  // Whether a rule of `thread` applies at shared state `g` with `top` on its stack.
  bool HasRule(std::uint32_t thread, Shared g, Symbol top) const {
    return index_[thread].find(Key(g, top)) != index_[thread].end();
  }

  const Cpds& cpds() const { return cpds_; }
  const InitialState& init() const { return init_; }
  const StackTable& stacks() const { return stacks_; }
  const Rule& rule(std::uint32_t thread, std::uint32_t action) const {
    return cpds_.threads[thread].rules[action];
  }

  // "g|w0,w1,..." with whole stacks bottom to top, `-` for an empty one.
  std::string DescribeState(StateView state) const;

  // DistributableModel: the shared state, then each stack's depth and symbols top to bottom, as
  // varints (explore/portable.h); Decode interns the stacks in this model's table.
  void Encode(StateView state, std::vector<std::uint8_t>& out) const;
  bool Decode(std::span<const std::uint8_t> bytes, std::vector<Word>& words);
  // OrbitModel: Encode's bytes with the stacks of each class of `symmetry` in byte order. Not for
  // concurrent calls (it writes into buffers of the model).
  void EncodeCanonical(StateView state, const ThreadSymmetry& symmetry,
                       std::vector<std::uint8_t>& out) const;
  // "2 13 -> 2 -" with the line it stands on.
  std::string DescribeRule(std::uint32_t thread, std::uint32_t action) const;

 private:
  // A stack's depth, then its symbols top to bottom.
  void AppendStack(StackId stack, std::vector<std::uint8_t>& out) const;
  template <class F>
  void Successors(StateView state, std::uint32_t thread, std::vector<Word>& out, F& yield) {
    const StackId stack = state[1 + thread];
    if (stack == StackTable::kEmpty) return;  // an empty stack has no enabled rule
    const auto it = index_[thread].find(Key(state[0], stacks_.Top(stack)));
    if (it == index_[thread].end()) return;
    out.assign(state.begin(), state.end());
    const StackId rest = stacks_.Rest(stack);
    const std::vector<Rule>& rules = cpds_.threads[thread].rules;
    for (std::uint32_t i = it->second.first; i < it->second.second; ++i) {
      const std::uint32_t action = order_[thread][i];
      const Rule& rule = rules[action];
      out[0] = rule.new_shared;
      switch (rule.kind) {
        case RuleKind::kOverwrite:
          out[1 + thread] = stacks_.Push(rule.new_top, rest);
          break;
        case RuleKind::kPush:
          out[1 + thread] = stacks_.Push(rule.new_top, stacks_.Push(rule.below, rest));
          break;
        case RuleKind::kPop:
          out[1 + thread] = rest;
          break;
      }
      yield(action, StateView(out));
    }
  }

  static std::uint64_t Key(Shared g, Symbol top) {
    return static_cast<std::uint64_t>(g) << 32 | top;
  }

  Cpds cpds_;
  InitialState init_;
  StackTable stacks_;
  std::vector<Word> initial_;
  std::vector<Word> out_;
  // EncodeCanonical's buffers.
  mutable std::vector<std::uint8_t> canonical_bytes_;
  mutable std::vector<std::size_t> canonical_ends_;
  mutable std::vector<std::size_t> canonical_order_;
  // Per thread: rule indices sorted by (shared, top), and (shared, top) -> [begin, end) into them.
  std::vector<std::vector<std::uint32_t>> order_;
  std::vector<absl::flat_hash_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>>> index_;
};

// Its contract with the engine (explore/model.h), stated where a new kind would copy it from.
static_assert(ExplorableModel<CpdsModel>);
static_assert(ConcurrentModel<CpdsModel>);
static_assert(OrbitModel<CpdsModel>);

std::string StackToString(const Stack& bottom_to_top);
std::string RuleToString(const Rule& rule);

}  // namespace druba::cpds
