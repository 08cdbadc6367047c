// States as bytes (explore/portable.h), for the distributed search: every reachable state of a
// model, written by one model and read by another with tables of its own (other stack ids, other
// interned values), is the same state: the same bytes again and the same description. Distinct
// states give distinct bytes, and bytes that are not a state are refused.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/files.h"
#include "cpds/below.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/top_k.h"
#include "drb/parser.h"
#include "explore/canonical.h"
#include "explore/portable.h"
#include "explore/state_store.h"
#include "interp/model.h"

namespace druba {
namespace {

// Breadth-first over every thread's successors, at most `limit` states.
template <class Model>
std::vector<std::vector<Word>> Reachable(Model& model, std::size_t limit) {
  std::set<std::vector<Word>> seen;
  std::deque<std::vector<Word>> queue;
  model.ForEachInitial([&](StateView s) { queue.emplace_back(s.begin(), s.end()); });
  std::vector<std::vector<Word>> out;
  while (!queue.empty() && out.size() < limit) {
    std::vector<Word> state = std::move(queue.front());
    queue.pop_front();
    if (!seen.insert(state).second) continue;
    out.push_back(state);
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      model.ForEachSuccessor(StateView(out.back()), t, [&](std::uint32_t, StateView s) {
        queue.emplace_back(s.begin(), s.end());
      });
    }
  }
  return out;
}

// Writes each state with `from`, reads it with `to`, and compares.
template <class Model>
void ExpectRoundTrips(Model& from, Model& to, const std::vector<std::vector<Word>>& states) {
  std::set<std::string> distinct;
  const auto text = [](const std::vector<std::uint8_t>& b) {
    return std::string(b.begin(), b.end());
  };
  for (const std::vector<Word>& state : states) {
    std::vector<std::uint8_t> bytes;
    from.Encode(StateView(state), bytes);
    std::vector<Word> read;
    ASSERT_TRUE(to.Decode(bytes, read)) << from.DescribeState(StateView(state));
    EXPECT_EQ(to.DescribeState(StateView(read)), from.DescribeState(StateView(state)));
    std::vector<std::uint8_t> again;
    to.Encode(StateView(read), again);
    EXPECT_EQ(text(again), text(bytes));
    distinct.insert(text(bytes));
    // A byte short, or one too many, is not a state.
    std::vector<Word> refused;
    EXPECT_FALSE(to.Decode(std::span<const std::uint8_t>(bytes).first(bytes.size() - 1), refused));
    bytes.push_back(0);
    EXPECT_FALSE(to.Decode(bytes, refused));
  }
  EXPECT_EQ(distinct.size(), states.size());
}

TEST(PortableTest, CpdsStatesTravelWithTheirStacks) {
  const std::string dir = std::string(DRUBA_BENCHMARKS) + "/04_BST-Insert/";
  const std::string pds = ReadFile(dir + "bst-22.pds");
  const std::string init = ReadFile(dir + "bst-22.init");
  const cpds::Cpds system = cpds::ParsePds(pds, "bst-22.pds", nullptr);
  cpds::CpdsModel from(system, cpds::ParseInit(init, "bst-22.init", system));
  cpds::CpdsModel to(system, cpds::ParseInit(init, "bst-22.init", system));
  // The reading model has met other stacks first, so its ids differ from the writer's.
  to.ForEachSuccessor(StateView(Reachable(to, 1)[0]), 1, [](std::uint32_t, StateView) {});
  const std::vector<std::vector<Word>> states = Reachable(from, 3000);
  ASSERT_GT(states.size(), 500U);
  ExpectRoundTrips(from, to, states);
  std::vector<std::uint8_t> bytes;
  from.Encode(StateView(states[0]), bytes);
  bytes[0] = 0x7F;  // a shared state the model does not have
  std::vector<Word> refused;
  EXPECT_FALSE(to.Decode(bytes, refused));
}

// Canonical bytes (OrbitModel) name orbits as the canonical form of explore/canonical.h does: two
// reachable states get the same bytes exactly when they lie in one orbit, and the bytes are those
// of a state of that orbit (read back, they give their own canonical bytes again), whatever the
// reading model's stack ids.
TEST(PortableTest, CanonicalBytesNameOrbits) {
  const std::string dir = std::string(DRUBA_BENCHMARKS) + "/08_Stefan-1/";
  const cpds::Cpds system = cpds::ParsePds(ReadFile(dir + "stefan-4.pds"), "stefan-4.pds", nullptr);
  const cpds::InitialState init =
      cpds::ParseInit(ReadFile(dir + "stefan-4.init"), "stefan-4.init", system);
  cpds::CpdsModel from(system, init);
  cpds::CpdsModel to(system, init);
  to.ForEachSuccessor(StateView(Reachable(to, 1)[0]), 1, [](std::uint32_t, StateView) {});
  const ThreadSymmetry symmetry{1, 1, {{0, 1, 2, 3}}};
  const CanonicalForm form(symmetry);
  std::map<std::vector<Word>, std::string> by_form;
  std::map<std::string, std::vector<Word>> by_bytes;
  std::vector<Word> canonical(from.state_width());
  for (const std::vector<Word>& state : Reachable(from, 4000)) {
    std::vector<std::uint8_t> bytes;
    from.EncodeCanonical(StateView(state), symmetry, bytes);
    const std::string text(bytes.begin(), bytes.end());
    form.Apply(StateView(state), std::span<Word>(canonical));
    EXPECT_EQ(by_form.emplace(canonical, text).first->second, text);
    EXPECT_EQ(by_bytes.emplace(text, canonical).first->second, canonical);
    std::vector<Word> read;
    ASSERT_TRUE(to.Decode(bytes, read));
    std::vector<std::uint8_t> again;
    to.EncodeCanonical(StateView(read), symmetry, again);
    EXPECT_EQ(std::string(again.begin(), again.end()), text);
  }
  EXPECT_GT(by_form.size(), 200U);
}

// The facts the may-lie-below relation reads off a set (cpds/below.h), read off its parts by
// other processes, written as bytes and merged, give the relation of the whole set.
TEST(PortableTest, VisibleFactsOfPartsMergeIntoTheWhole) {
  const std::string dir = std::string(DRUBA_BENCHMARKS) + "/03_Bluetooth-3/";
  const cpds::Cpds system =
      cpds::ParsePds(ReadFile(dir + "Bluetooth3-21.pds"), "Bluetooth3-21.pds", nullptr);
  const cpds::InitialState init =
      cpds::ParseInit(ReadFile(dir + "Bluetooth3-21.init"), "Bluetooth3-21.init", system);
  cpds::CpdsModel model(system, init);
  const std::vector<std::vector<Word>> states = Reachable(model, 5000);
  for (const std::uint32_t k : {1U, 2U}) {
    const cpds::TopKAbstraction abs(model, k, std::nullopt);
    StateStore whole(abs.width());
    std::vector<std::unique_ptr<StateStore>> parts;
    for (int i = 0; i < 3; ++i) parts.push_back(std::make_unique<StateStore>(abs.width()));
    std::vector<Word> a(abs.width());
    for (std::size_t i = 0; i < states.size(); ++i) {
      abs.Abstract(StateView(states[i]), a);
      whole.FindOrInsert(StateView(a));
      parts[i % 3]->FindOrInsert(StateView(a));
    }
    cpds::VisibleFacts merged(system);
    for (const auto& part : parts) {
      std::vector<std::uint8_t> bytes;
      abs.Facts(*part).Write(bytes);
      ASSERT_TRUE(merged.Read(bytes));
      bytes.push_back(0);  // one byte too many: not facts
      cpds::VisibleFacts refused(system);
      EXPECT_FALSE(refused.Read(bytes));
    }
    const cpds::VisibleFacts all = abs.Facts(whole);
    const cpds::MayLieBelow from_parts(system, init, &merged);
    const cpds::MayLieBelow from_whole(system, init, &all);
    EXPECT_TRUE(from_parts == from_whole) << "K = " << k;
    // And the relation depends on the set: the first part alone gives a smaller one.
    const cpds::VisibleFacts first = abs.Facts(*parts[0]);
    EXPECT_FALSE(cpds::MayLieBelow(system, init, &first) == from_whole) << "K = " << k;
  }
}

TEST(PortableTest, DrbStatesTravelWithTheirBigValues) {
  // Values beyond 2^30 are interned, in each model's own table in the order it meets them.
  const drb::Program program = drb::ParseProgram(R"(
    shared int x = 3;
    local int l = 0;
    thread T * 2 {
      a: x := x * 100003 - l;
      b: l := x;
         goto a;
    }
  )",
                                                 "big.drb");
  predabs::IntModel from(program, 2);
  predabs::IntModel to(program, 2);
  const std::vector<std::vector<Word>> states = Reachable(from, 400);
  ASSERT_GT(from.values().num_big(), 10U);
  ExpectRoundTrips(from, to, states);
}

}  // namespace
}  // namespace druba
