// ascend-opgen emulation: the subset of googletest (include/gtest/gtest.h) the generated op_host unit tests
// use, so they compile and run here without googletest installed. Hand-written; not googletest's code.
// The names mirror googletest's public API: ::testing::Test (SetUp/TearDown, static SetUpTestCase/
// TearDownTestCase), ::testing::InitGoogleTest(int *, char **), RUN_ALL_TESTS(), TEST, TEST_F,
// EXPECT_/ASSERT_ EQ, NE, TRUE, FALSE, GTEST_SKIP(); each assertion accepts `<< message`.
// Output follows googletest's console lines ([ RUN      ], [       OK ], [  FAILED  ], [  SKIPPED ],
// [  PASSED  ]); RUN_ALL_TESTS() returns 0 when no test failed, else 1.
#ifndef OPGEN_RT_GTEST_GTEST_H
#define OPGEN_RT_GTEST_GTEST_H

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace testing {

class Test;

namespace internal {

using TestFactory = Test *(*)();
using SuiteHook = void (*)();

struct TestInfoEntry {
  std::string suite;
  std::string name;
  TestFactory factory;
  SuiteHook setUpSuite;
  SuiteHook tearDownSuite;
};

struct State {
  std::vector<TestInfoEntry> tests;
  bool currentFailed = false;
  bool currentSkipped = false;
};

inline State &GetState() {
  static State state;
  return state;
}

inline bool RegisterTest(const char *suite, const char *name, TestFactory factory, SuiteHook setUp,
                         SuiteHook tearDown) {
  GetState().tests.push_back({suite, name, factory, setUp, tearDown});
  return true;
}

}  // namespace internal

// The text after `<<` on an assertion.
class Message {
 public:
  Message() = default;
  template <typename T>
  Message &operator<<(const T &value) {
    stream_ << value;
    return *this;
  }
  std::string GetString() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
};

class Test {
 public:
  virtual ~Test() = default;
  static void SetUpTestCase() {}
  static void TearDownTestCase() {}
  static void SetUpTestSuite() {}
  static void TearDownTestSuite() {}
  void Run() {
    SetUp();
    if (!internal::GetState().currentFailed && !internal::GetState().currentSkipped) {
      TestBody();
    }
    TearDown();
  }

 protected:
  Test() = default;
  virtual void SetUp() {}
  virtual void TearDown() {}

 private:
  virtual void TestBody() = 0;
};

namespace internal {

enum class Outcome { NONFATAL, FATAL, SKIP };

// Records a failure (or a skip) with its place and message; `operator=` takes the user's Message.
class AssertHelper {
 public:
  AssertHelper(Outcome outcome, const char *file, int line, std::string text)
      : outcome_(outcome), file_(file), line_(line), text_(std::move(text)) {}
  void operator=(const Message &message) const {
    State &state = GetState();
    const std::string extra = message.GetString();
    if (outcome_ == Outcome::SKIP) {
      state.currentSkipped = true;
      std::cout << file_ << ":" << line_ << ": Skipped" << (extra.empty() ? "" : "\n") << extra << std::endl;
      return;
    }
    state.currentFailed = true;
    std::cout << file_ << ":" << line_ << ": Failure\n" << text_ << (extra.empty() ? "" : "\n") << extra
              << std::endl;
  }

 private:
  Outcome outcome_;
  const char *file_;
  int line_;
  std::string text_;
};

template <typename T>
void PrintValue(std::ostream &out, const T &value) {
  out << value;
}

// Containers print as googletest prints them: { 1, 2, 3 }.
template <typename T>
void PrintValue(std::ostream &out, const std::vector<T> &values) {
  out << "{";
  for (size_t i = 0; i < values.size(); ++i) {
    out << (i == 0 ? " " : ", ");
    PrintValue(out, values[i]);
  }
  out << (values.empty() ? "}" : " }");
}

template <typename A, typename B>
std::string CompareText(const char *op, const char *aText, const char *bText, const A &a, const B &b) {
  std::ostringstream out;
  out << "Expected: (" << aText << ") " << op << " (" << bText << "), actual: ";
  PrintValue(out, a);
  out << " vs ";
  PrintValue(out, b);
  return out.str();
}

template <typename A, typename B>
bool CmpEq(const A &a, const B &b) {
  return a == b;
}

template <typename A, typename B>
bool CmpNe(const A &a, const B &b) {
  return a != b;
}

}  // namespace internal

inline void InitGoogleTest(int *argc, char **argv) {
  (void)argc;
  (void)argv;
}

}  // namespace testing

// googletest declares RUN_ALL_TESTS() as a function in the global namespace.
inline int RUN_ALL_TESTS() {
  using ::testing::internal::GetState;
  auto &state = GetState();
  int passed = 0;
  int skipped = 0;
  std::vector<std::string> failed;
  const auto &tests = state.tests;
  for (size_t i = 0; i < tests.size(); ++i) {
    const bool firstOfSuite = i == 0 || tests[i - 1].suite != tests[i].suite;
    const bool lastOfSuite = i + 1 == tests.size() || tests[i + 1].suite != tests[i].suite;
    if (firstOfSuite) {
      tests[i].setUpSuite();
    }
    const std::string full = tests[i].suite + "." + tests[i].name;
    std::cout << "[ RUN      ] " << full << std::endl;
    state.currentFailed = false;
    state.currentSkipped = false;
    ::testing::Test *test = tests[i].factory();
    test->Run();
    delete test;
    if (state.currentFailed) {
      failed.push_back(full);
      std::cout << "[  FAILED  ] " << full << std::endl;
    } else if (state.currentSkipped) {
      ++skipped;
      std::cout << "[  SKIPPED ] " << full << std::endl;
    } else {
      ++passed;
      std::cout << "[       OK ] " << full << std::endl;
    }
    if (lastOfSuite) {
      tests[i].tearDownSuite();
    }
  }
  std::cout << "[==========] " << tests.size() << " tests ran." << std::endl;
  std::cout << "[  PASSED  ] " << passed << " tests." << std::endl;
  if (skipped > 0) {
    std::cout << "[  SKIPPED ] " << skipped << " tests." << std::endl;
  }
  if (!failed.empty()) {
    std::cout << "[  FAILED  ] " << failed.size() << " tests, listed below:" << std::endl;
    for (const auto &name : failed) {
      std::cout << "[  FAILED  ] " << name << std::endl;
    }
    return 1;
  }
  return 0;
}

#define OPGEN_GTEST_CLASS_NAME_(suite, name) suite##_##name##_Test

#define OPGEN_GTEST_TEST_(suite, name, parent)                                                              \
  class OPGEN_GTEST_CLASS_NAME_(suite, name) : public parent {                                              \
   public:                                                                                                  \
    OPGEN_GTEST_CLASS_NAME_(suite, name)() = default;                                                       \
                                                                                                            \
   private:                                                                                                 \
    void TestBody() override;                                                                               \
    static bool registered_;                                                                                \
  };                                                                                                        \
  bool OPGEN_GTEST_CLASS_NAME_(suite, name)::registered_ = ::testing::internal::RegisterTest(              \
      #suite, #name, []() -> ::testing::Test * { return new OPGEN_GTEST_CLASS_NAME_(suite, name)(); },      \
      &parent::SetUpTestCase, &parent::TearDownTestCase);                                                   \
  void OPGEN_GTEST_CLASS_NAME_(suite, name)::TestBody()

#define TEST(suite, name) OPGEN_GTEST_TEST_(suite, name, ::testing::Test)
#define TEST_F(fixture, name) OPGEN_GTEST_TEST_(fixture, name, fixture)

#define OPGEN_GTEST_ASSERT_(ok, text, outcome, onFail)                                                      \
  switch (0)                                                                                                \
  case 0:                                                                                                   \
  default:                                                                                                  \
    if (ok)                                                                                                 \
      ;                                                                                                     \
    else                                                                                                    \
      onFail ::testing::internal::AssertHelper(outcome, __FILE__, __LINE__, text) = ::testing::Message()

#define OPGEN_GTEST_FATAL_ return
#define OPGEN_GTEST_NONFATAL_

#define OPGEN_GTEST_CMP_(cmp, op, a, b, outcome, onFail)                                                   \
  OPGEN_GTEST_ASSERT_(::testing::internal::cmp((a), (b)),                                                   \
                      ::testing::internal::CompareText(op, #a, #b, (a), (b)), outcome, onFail)

#define EXPECT_EQ(a, b) \
  OPGEN_GTEST_CMP_(CmpEq, "==", a, b, ::testing::internal::Outcome::NONFATAL, OPGEN_GTEST_NONFATAL_)
#define ASSERT_EQ(a, b) OPGEN_GTEST_CMP_(CmpEq, "==", a, b, ::testing::internal::Outcome::FATAL, OPGEN_GTEST_FATAL_)
#define EXPECT_NE(a, b) \
  OPGEN_GTEST_CMP_(CmpNe, "!=", a, b, ::testing::internal::Outcome::NONFATAL, OPGEN_GTEST_NONFATAL_)
#define ASSERT_NE(a, b) OPGEN_GTEST_CMP_(CmpNe, "!=", a, b, ::testing::internal::Outcome::FATAL, OPGEN_GTEST_FATAL_)
#define EXPECT_TRUE(c) \
  OPGEN_GTEST_ASSERT_((c), "Value of: " #c "\n  Actual: false\nExpected: true", \
                      ::testing::internal::Outcome::NONFATAL, OPGEN_GTEST_NONFATAL_)
#define ASSERT_TRUE(c) \
  OPGEN_GTEST_ASSERT_((c), "Value of: " #c "\n  Actual: false\nExpected: true", \
                      ::testing::internal::Outcome::FATAL, OPGEN_GTEST_FATAL_)
#define EXPECT_FALSE(c) \
  OPGEN_GTEST_ASSERT_(!(c), "Value of: " #c "\n  Actual: true\nExpected: false", \
                      ::testing::internal::Outcome::NONFATAL, OPGEN_GTEST_NONFATAL_)
#define ASSERT_FALSE(c) \
  OPGEN_GTEST_ASSERT_(!(c), "Value of: " #c "\n  Actual: true\nExpected: false", \
                      ::testing::internal::Outcome::FATAL, OPGEN_GTEST_FATAL_)
#define GTEST_SKIP() OPGEN_GTEST_ASSERT_(false, "", ::testing::internal::Outcome::SKIP, OPGEN_GTEST_FATAL_)

#endif  // OPGEN_RT_GTEST_GTEST_H
