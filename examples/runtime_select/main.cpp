// Runs the shipped SGEMM and transpose at sizes given on the command line, with the configs and
// embedded code a release database selects for this GPU, and checks them against the CPU.
//   runtime_select RELEASE.gtrel [--sgemm M N K] [--transpose N]
// Exit codes: 0 correct, 1 a wrong result, 2 usage, 3 no code for this GPU, 69 no GPU.
#include <gputune/runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace rt = gputune::runtime;

namespace {

constexpr int kWrong = 1, kUsage = 2, kNoCode = 3, kNoGpu = 69;

std::vector<float> random_floats(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> out(count);
  for (float& x : out) x = uniform(random);
  return out;
}

void report(const char* what, const rt::Selection& s, double ms) {
  std::string config;
  for (const rt::Parameter& p : s.config)
    config += (config.empty() ? "" : " ") + p.name + "=" + p.text;
  std::printf("%s: tier %s (distance %.3f) from %s\n  config %s\n  %.4f ms\n", what,
              rt::tier_name(s.tier), s.distance, s.layer.c_str(), config.c_str(), ms);
}

// Launches once to warm up, then times one launch.
double run_timed(const rt::Selection& s, void** arguments) {
  s.launch(arguments);
  rt::synchronize();
  const auto start = std::chrono::steady_clock::now();
  s.launch(arguments);
  rt::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

bool runnable(const char* what, const rt::Selection& s) {
  if (s.has_code() && !s.launches.empty()) return true;
  std::fprintf(stderr, "%s: the release database has no code of its selection for this GPU:\n%s\n",
               what, s.explanation.c_str());
  return false;
}

int sgemm(const rt::Selector& selector, const rt::DeviceDescription& device, int m, int n, int k) {
  const rt::Selection s = selector.select("sgemm", {{"m", m}, {"n", n}, {"k", k}}, device);
  if (!runnable("sgemm", s)) return kNoCode;
  const std::vector<float> a = random_floats(size_t(m) * k, 11),
                           b = random_floats(size_t(k) * n, 12);
  std::vector<float> c(size_t(m) * n);
  rt::DeviceBuffer dc(c.size() * 4), da(a.size() * 4), db(b.size() * 4);
  da.upload(a.data());
  db.upload(b.data());
  uint64_t pc = dc.address(), pa = da.address(), pb = db.address();
  void* arguments[] = {&pc, &pa, &pb, &m, &n, &k};
  const double ms = run_timed(s, arguments);
  dc.download(c.data());
  report("sgemm", s, ms);
  // A sample of the outputs against double-precision dot products.
  std::mt19937 random(5);
  for (int sample = 0; sample < 2000; ++sample) {
    const size_t i = random() % m, j = random() % n;
    double expected = 0, scale = 0;
    for (int p = 0; p < k; ++p) {
      expected += double(a[i * k + p]) * b[size_t(p) * n + j];
      scale += std::fabs(double(a[i * k + p]) * b[size_t(p) * n + j]);
    }
    if (std::fabs(c[i * n + j] - expected) > 1e-4 * scale + 1e-4) {
      std::fprintf(stderr, "sgemm: C[%zu][%zu] = %.6g, expected %.6g\n", i, j, c[i * n + j],
                   expected);
      return kWrong;
    }
  }
  std::printf("  correct (2000 sampled elements against the CPU)\n");
  return 0;
}

int transpose(const rt::Selector& selector, const rt::DeviceDescription& device, int n) {
  const rt::Selection s = selector.select("transpose", {{"n", n}}, device);
  if (!runnable("transpose", s)) return kNoCode;
  const std::vector<float> in = random_floats(size_t(n) * n, 1);
  std::vector<float> out(in.size());
  rt::DeviceBuffer dout(out.size() * 4), din(in.size() * 4);
  din.upload(in.data());
  uint64_t po = dout.address(), pi = din.address();
  void* arguments[] = {&po, &pi, &n};
  const double ms = run_timed(s, arguments);
  dout.download(out.data());
  report("transpose", s, ms);
  for (size_t i = 0; i < size_t(n); ++i) {
    for (size_t j = 0; j < size_t(n); ++j) {
      if (out[j * n + i] != in[i * n + j]) {
        std::fprintf(stderr, "transpose: out[%zu][%zu] = %g, expected %g\n", j, i, out[j * n + i],
                     in[i * n + j]);
        return kWrong;
      }
    }
  }
  std::printf("  correct (every element against the CPU)\n");
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: runtime_select RELEASE.gtrel [--sgemm M N K] [--transpose N]\n");
  return kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string release = argv[1];
  std::vector<int> sgemm_size, transpose_size;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    std::vector<int>* into = flag == "--sgemm"       ? &sgemm_size
                             : flag == "--transpose" ? &transpose_size
                                                     : nullptr;
    const int count = flag == "--sgemm" ? 3 : 1;
    if (into == nullptr || i + count >= argc) return usage();
    for (int c = 0; c < count; ++c) {
      const int value = std::atoi(argv[++i]);
      if (value <= 0) return usage();
      into->push_back(value);
    }
  }
  if (sgemm_size.empty() && transpose_size.empty()) transpose_size = {3000};
  rt::DeviceDescription device;
  try {
    device = rt::DeviceDescription::current(0);
  } catch (const rt::NoGpuError& e) {
    std::fprintf(stderr, "runtime_select: no GPU: %s\n", e.what());
    return kNoGpu;
  }
  const rt::Selector selector = rt::Selector::open({release});
  for (const std::string& warning : selector.warnings()) {
    std::fprintf(stderr, "runtime_select: warning: %s\n", warning.c_str());
  }
  std::printf("%s (%s, %d SMs)\n", device.name.c_str(), device.arch().c_str(), device.sm_count);
  try {
    if (!sgemm_size.empty()) {
      if (int rc = sgemm(selector, device, sgemm_size[0], sgemm_size[1], sgemm_size[2])) return rc;
    }
    if (!transpose_size.empty()) {
      if (int rc = transpose(selector, device, transpose_size[0])) return rc;
    }
  } catch (const rt::RuntimeError& e) {
    std::fprintf(stderr, "runtime_select: %s\n", e.what());
    return kWrong;
  }
  return 0;
}
