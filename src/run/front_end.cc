#include "run/front_end.h"

namespace druba::run {

Outcome OptionDisagrees(const std::string& option, const std::string& certificate) {
  return {
      Outcome::Kind::kCertificateInvalid,
      std::nullopt,
      "certificate invalid: options: " + option + ", but the certificate is " + certificate + "\n",
      {}};
}

}  // namespace druba::run
