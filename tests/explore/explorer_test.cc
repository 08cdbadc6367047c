// The explorer against an independent computation of Def. 1 (tests/support/reference.h), on the
// paper's Ex. 8 and on many random small CPDS.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "cpds/model.h"
#include "cpds/reader.h"
#include "explore/explorer.h"
#include "support/reference.h"

namespace druba {
namespace {

using testing::PlainState;

struct CountingListener {
  std::size_t states = 0;
  bool OnNewState(std::uint32_t, StateView) {
    ++states;
    return true;
  }
};

std::set<PlainState> Reached(const Explorer<cpds::CpdsModel, CountingListener>& ex,
                             const cpds::CpdsModel& model) {
  std::set<PlainState> out;
  for (std::uint32_t id = 0; id < ex.num_states(); ++id) {
    const std::vector<Word> s = ex.state(id);
    PlainState plain{s[0], {}};
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      plain.stacks.push_back(model.stacks().Contents(s[1 + t]));
    }
    out.insert(plain);
  }
  return out;
}

std::set<cpds::Shared> SharedOf(const std::set<PlainState>& states) {
  std::set<cpds::Shared> out;
  for (const PlainState& s : states) out.insert(s.shared);
  return out;
}

std::pair<cpds::Cpds, cpds::InitialState> LoadEx8() {
  const std::string dir = DRUBA_SOURCE_DIR "/models/";
  Warnings warnings;
  cpds::Cpds c = cpds::ParsePds(cpds::ReadFile(dir + "ex8.pds"), "ex8.pds", &warnings);
  cpds::InitialState i = cpds::ParseInit(cpds::ReadFile(dir + "ex8.init"), "ex8.init", c);
  return {c, i};
}

// The paper's Table 1: reachable shared states of Ex. 8 for r = 1..3, d = 0..4, computed from
// scratch at every cell and incrementally along a path through the table.
TEST(ExplorerTest, ReproducesTable1OfThePaper) {
  auto [c, init] = LoadEx8();
  const std::set<cpds::Shared> two{0, 1};
  const std::set<cpds::Shared> three{0, 1, 2};
  for (std::uint32_t r = 1; r <= 3; ++r) {
    for (std::uint32_t d = 0; d <= 4; ++d) {
      cpds::CpdsModel model(c, init);
      CountingListener listener;
      Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
      ASSERT_TRUE(ex.Start({r, d}));
      EXPECT_EQ(SharedOf(Reached(ex, model)), d < 2 ? two : three) << "r=" << r << " d=" << d;
    }
  }
  // Incrementally, along the driver's path (1,0) (2,0) (2,1) (2,2) (3,2) (3,3) (3,4).
  cpds::CpdsModel model(c, init);
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start());
  EXPECT_EQ(SharedOf(Reached(ex, model)), std::set<cpds::Shared>{0});
  ex.RaiseRounds();
  EXPECT_EQ(SharedOf(Reached(ex, model)), two);
  ex.RaiseRounds();
  ex.RaiseDelays();
  EXPECT_EQ(SharedOf(Reached(ex, model)), two);
  ex.RaiseDelays();
  EXPECT_EQ(SharedOf(Reached(ex, model)), three);
}

TEST(ExplorerTest, AStutterIsAStepAndADelayIsNot) {
  // One thread, no rules: the only state is reached; R(1,0) takes one stutter step.
  cpds::Cpds c;
  c.file = "blocked";
  c.shared_states = 1;
  c.threads.push_back({0, 0, 1, {}});
  cpds::CpdsModel model(c, {0, {{0}}});
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start({1, 0}));
  EXPECT_EQ(ex.num_states(), 1u);
  EXPECT_EQ(ex.stats().image_calls, 1u);
  EXPECT_EQ(ex.stats().delay_moves, 0u);
}

// DESIGN.md section 3's invariant: after every bound change, the stored states equal R(r,d).
void CheckIncrementalAgainstDef1(std::mt19937& rng, const testing::RandomCpdsOptions& options) {
  auto [c, init] = testing::RandomCpds(rng, options);
  constexpr std::uint32_t kMax = 6;
  const testing::Def1Reference reference(c, init, kMax, kMax);
  cpds::CpdsModel model(c, init);
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start());
  ASSERT_EQ(Reached(ex, model), reference.Reach(0, 0));
  while (ex.bounds().rounds < kMax || ex.bounds().delays < kMax) {
    const bool rounds = ex.bounds().delays == kMax ||
                        (ex.bounds().rounds < kMax && std::bernoulli_distribution(0.5)(rng));
    ASSERT_TRUE(rounds ? ex.RaiseRounds() : ex.RaiseDelays());
    const Bounds b = ex.bounds();
    ASSERT_EQ(Reached(ex, model), reference.Reach(b.rounds, b.delays))
        << "threads=" << c.threads.size() << " r=" << b.rounds << " d=" << b.delays;
    ASSERT_EQ(listener.states, ex.num_states());
  }
}

TEST(ExplorerTest, IncrementalEqualsDef1OnRandomProgramsWithRecursion) {
  std::mt19937 rng(20261121);
  for (int i = 0; i < 600; ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    CheckIncrementalAgainstDef1(rng, {4, 3, 3, 4, true});
    if (HasFatalFailure()) return;
  }
}

TEST(ExplorerTest, IncrementalEqualsDef1OnRandomProgramsWithoutRecursion) {
  std::mt19937 rng(7);
  for (int i = 0; i < 600; ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    CheckIncrementalAgainstDef1(rng, {4, 3, 3, 5, false});
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace druba
