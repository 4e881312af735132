// A core/ file spelling an op's name (line 3): tools/check_op_names.py must report it too (core/
// takes the names from the generated core/op_names.h).
void view_like() { fail("exp", "bad"); }
