// The memory limit stops a search before an allocation that would pass it, not only after.
#include <gtest/gtest.h>

#include "common/resources.h"

namespace druba {
namespace {

TEST(LimitWatchTest, AnUpcomingGrowthThatWouldPassTheMemoryLimitStopsTheRun) {
  LimitWatch room({0, CurrentRssMb() + 200});
  EXPECT_FALSE(room.Check(0).has_value());
  EXPECT_FALSE(room.Check(10.0 * 1024 * 1024).has_value());  // 10 MB fit

  LimitWatch tight({0, CurrentRssMb() + 200});
  const auto reason = tight.Check(1024.0 * 1024 * 1024);  // a 1 GiB table growth does not
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("next growth of the search tables needs"), std::string::npos) << *reason;
  EXPECT_EQ(tight.Check(0), reason);  // once stopped, it stays stopped
}

}  // namespace
}  // namespace druba
