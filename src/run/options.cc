#include "run/options.h"

#include <algorithm>
#include <thread>

namespace druba::run {

std::string_view CommandName(Command command) {
  switch (command) {
    case Command::kVerify:
      return "verify";
    case Command::kTest:
      return "test";
    case Command::kReplay:
      return "replay";
    case Command::kCheck:
      return "check";
  }
  return "?";
}

std::string_view UpperBoundName(UpperBound bound) {
  switch (bound) {
    case UpperBound::kAuto:
      return "auto";
    case UpperBound::kJoint:
      return "joint";
    case UpperBound::kStatic:
      return "static";
    case UpperBound::kOff:
      return "off";
  }
  return "?";
}

unsigned JobsFromOption(unsigned jobs) {
  return jobs != 0 ? jobs : std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace druba::run
