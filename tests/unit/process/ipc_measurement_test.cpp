#include <gtest/gtest.h>

#include "process/ipc.h"
#include "support/measurement_fields.h"

namespace gputune {
namespace {

TEST(IpcMeasurement, EveryListedFieldRoundTrips) {
  const Measurement m = testing::every_field_set();
  ipc::Writer w;
  ipc::put(w, m);
  const std::string data = w.take();
  ipc::Reader r(data);
  Measurement back;
  ipc::get(r, &back);
  EXPECT_TRUE(r.at_end());
  testing::expect_fields(m, back, testing::every_field);
}

TEST(IpcMeasurement, ATruncatedMeasurementThrows) {
  ipc::Writer w;
  ipc::put(w, testing::every_field_set());
  const std::string data = w.data().substr(0, w.data().size() - 1);
  ipc::Reader r(data);
  Measurement back;
  EXPECT_THROW(ipc::get(r, &back), Error);
}

}  // namespace
}  // namespace gputune
