#pragma once
// The names of a field's tables, strides and hash parameters in generated
// code, spelled in one place from their roles and owners in the plan:
// a predictor's lines are named after it ("fcm3", "lv", "fcm1_2" for a
// repeated FCM1), a shared history after its sequence ("value_history",
// "stride_history"), a predictor's own history, last value or stride after
// its owner ("dfcm3_history") and shared ones plainly ("last_value", "stride").

#include <cstddef>
#include <string>
#include <vector>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

class FieldNames {
public:
    explicit FieldNames(const PlanField& field);

    // A table's own name: the member of the Lines struct that points at its
    // line in select(); the table itself is the class member table(i).
    std::string name(std::size_t table) const;
    std::string table(std::size_t table) const { return name(table) + "_table_"; }
    std::string line(std::size_t table) const { return "lines." + name(table); }
    // The local variable holding a stride in update().
    std::string stride(std::size_t stride) const;
    // The named constant of a sequence's hash shift.
    static std::string shift(Sequence sequence);
    // "FCM3[2]": how the report and comments name predictor number i.
    std::string predictor(std::size_t predictor) const;

private:
    const PlanField& field_;
    std::vector<std::string> stems_;  // by predictor: "fcm3", "fcm1_2"
};

}  // namespace tcgen
