// The limits stop a search before a table growth that would pass them, not only after.
#include <gtest/gtest.h>

#include <vector>

#include "common/resources.h"
#include "explore/state_store.h"

namespace druba {
namespace {

constexpr double kMiB = 1024.0 * 1024;

TEST(LimitWatchTest, AnUpcomingGrowthThatWouldPassTheMemoryLimitStopsTheRun) {
  LimitWatch room({0, CurrentRssMb() + 200});
  EXPECT_FALSE(room.Check().has_value());
  EXPECT_FALSE(room.Check({10 * kMiB, 0}).has_value());  // 10 MB fit

  LimitWatch tight({0, CurrentRssMb() + 200});
  const auto reason = tight.Check({1024 * kMiB, 0});  // a 1 GiB table growth does not
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("next growth of the search tables needs"), std::string::npos) << *reason;
  EXPECT_EQ(tight.Check(), reason);  // once stopped, it stays stopped
}

// A growth cannot stop half-way: one predicted to end after the time limit stops the run first.
TEST(LimitWatchTest, AGrowthThatWouldEndAfterTheTimeLimitStopsTheRun) {
  LimitWatch watch({60, 0});
  EXPECT_FALSE(watch.Check({kMiB, 1}).has_value());
  const auto reason = watch.Check({kMiB, 90});
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("time limit of 60 s reached (the next growth"), std::string::npos)
      << *reason;
}

// With no --memory-limit, a run still stops before it takes more than the machine has for it.
TEST(LimitWatchTest, TheMachinesMemoryStopsARunWithoutALimit) {
  const double machine_mb = MachineMemoryMb();
  ASSERT_GT(machine_mb, 0) << "neither /proc/meminfo nor a control group says";
  LimitWatch watch({0, 0});
  EXPECT_FALSE(watch.Check({kMiB, 0}).has_value());
  const auto reason = watch.Check({machine_mb * kMiB, 0});
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("the machine's memory nearly used"), std::string::npos) << *reason;
  // A --memory-limit above the machine's does not lift it.
  LimitWatch above({0, 100 * machine_mb});
  EXPECT_TRUE(above.Check({machine_mb * kMiB, 0}).has_value());
}

// A store times its growths and predicts the next from the last: twice the entries, about twice
// the time.
TEST(StateStoreTest, TheNextGrowthsTimeIsPredictedFromTheLast) {
  StateStore store(4);
  EXPECT_EQ(store.NextGrowth().seconds, 0);  // nothing measured yet
  std::vector<Word> state(4);
  bool predicted = false;
  for (Word i = 0; i < 100000 && !predicted; ++i) {
    state[0] = i;
    store.FindOrInsert(StateView(state));
    const Growth next = store.NextGrowth();
    predicted = next.bytes > 0 && next.seconds > 0;
  }
  EXPECT_TRUE(predicted);
}

}  // namespace
}  // namespace druba
