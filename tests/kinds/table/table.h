// A third model kind, kept in the test tree to prove what docs/architecture.md says a kind
// touches: an explicit transition table (`.tbl`) read from a file, explored, abstracted,
// described and reported through the same pipeline as CPDS and .drb models, by a front end the
// command line finds in its table of kinds. Nothing outside tests/kinds knows it.
//
// The format, one item per line ('#' starts a comment):
//   threads N            the number of threads
//   init S L             the initial shared value and every thread's local value
//   edge S L -> S2 L2    any thread at local L with shared S moves to (S2, L2); S = '*' matches
//                        every shared value and leaves it unchanged
//   bad S                reaching shared value S violates the property
// The abstraction keeps the shared value and how many threads are at each local (a counter
// abstraction): every thread has the same edges, so which thread moves does not matter, and the
// abstract post of each edge is computed exactly from the abstract state. The closure test
// enumerates it for every edge (every action counts as disrespecting; the post is exact, so the
// closed set is an inductive invariant of the abstract system).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "abstraction/abstraction.h"
#include "explore/model.h"
#include "explore/state_store.h"
#include "run/front_end.h"
#include "run/report.h"
#include "run/run_count.h"
#include "support/fixed_graph.h"

namespace druba::table {

struct Table {
  std::uint32_t threads = 0;
  Word init_shared = 0;
  Word init_local = 0;
  std::vector<testing::FixedGraph::Edge> edges;
  std::vector<Word> bad;
};

// Throws InputError naming file, line and column.
Table ParseTable(std::string_view text, const std::string& file);

// The table as a model: FixedGraph with the same edges for every thread.
testing::FixedGraph MakeModel(const Table& table);

// Locals are below kLocals; the abstract state is the shared value and a count per local.
inline constexpr Word kLocals = 8;

class TableAbstraction {
 public:
  explicit TableAbstraction(const Table& table) : table_(table) {}
  std::size_t width() const { return 1 + kLocals; }
  void Abstract(StateView state, std::span<Word> out) const {
    std::fill(out.begin(), out.end(), 0);
    out[0] = state[0];
    for (std::size_t t = 1; t < state.size(); ++t) ++out[1 + state[t]];
  }
  bool Violates(StateView abstract) const {
    return std::find(table_.bad.begin(), table_.bad.end(), abstract[0]) != table_.bad.end();
  }
  // The abstract post of each edge some thread can take: one thread fewer at its local, one more
  // at its target.
  class Oracle {
   public:
    explicit Oracle(const Table& table) : table_(table) {}
    template <class F>
    void ForEachDisrespectSuccessor(StateView a, F&& f) const {
      ForEachAbstractSuccessor(a, f);
    }
    template <class F>
    void ForEachAbstractSuccessor(StateView a, F&& f) const {
      std::vector<Word> to(a.begin(), a.end());
      for (std::uint32_t i = 0; i < table_.edges.size(); ++i) {
        const testing::FixedGraph::Edge& e = table_.edges[i];
        if (a[1 + e.local] == 0) continue;
        if (e.shared != testing::FixedGraph::kAny && a[0] != e.shared) continue;
        to.assign(a.begin(), a.end());
        if (e.shared != testing::FixedGraph::kAny) to[0] = e.to_shared;
        --to[1 + e.local];
        ++to[1 + e.to_local];
        f(0, i, StateView(to));
      }
    }
    std::string_view undecided() const { return {}; }

   private:
    const Table& table_;
  };
  Oracle MakeClosureOracle(const StateStore& /*reached*/) const { return Oracle(table_); }
  std::string Describe(StateView abstract) const;
  std::string DescribeAction(std::uint32_t /*thread*/, std::uint32_t action) const;

 private:
  const Table& table_;
};

static_assert(ExplorableModel<testing::FixedGraph>);
static_assert(run::DescribableAbstraction<TableAbstraction>);

// The table's options (the kind's own struct): more bad shared values.
struct TableOptions {
  std::vector<Word> bad;
};

class TableFrontEnd final : public run::FrontEnd {
 public:
  std::string_view name() const override { return "a transition table"; }
  std::string_view group() const override { return "transition tables (.tbl)"; }
  std::string_view extension() const override { return ".tbl"; }
  void AddOptions(run::Command command, CLI::Option_group& group) override;
  std::string CheckUsage(const run::RunOptions& request) const override;
  run::Outcome Run(const run::RunOptions& request, const run::Sinks& sinks) override;

 private:
  TableOptions options_;
};

}  // namespace druba::table
