# SPDX-License-Identifier: Apache-2.0
# The build-time half of Note [Every public function has a gradient or a
# reason] (runtime/public_gradients.hpp): every function the public headers
# declare TSR_API has a row in TSR_PUBLIC_GRADIENTS, and every row names one
# of them. Run as `cmake -DHEADERS=a.h|b.h -DTABLE=public_gradients.hpp
# -DSTAMP=file -P CheckPublicGradients.cmake`; fails naming what is missing.
string(REPLACE "|" ";" HEADERS "${HEADERS}")
set(declared "")
foreach(header IN LISTS HEADERS)
  file(READ "${header}" text)
  # A declaration: TSR_API, its return type, the name, "(" (over lines).
  string(REGEX MATCHALL "TSR_API[^;(]*[ *](tsr_[a-z0-9_]+)[ \t\n]*\\(" found "${text}")
  foreach(decl IN LISTS found)
    string(REGEX REPLACE ".*[ *](tsr_[a-z0-9_]+)[ \t\n]*\\($" "\\1" name "${decl}")
    list(APPEND declared "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES declared)

file(READ "${TABLE}" table)
string(REGEX MATCHALL "M\\((tsr_[a-z0-9_]+)," rows "${table}")
set(listed "")
foreach(row IN LISTS rows)
  string(REGEX REPLACE "M\\((tsr_[a-z0-9_]+),$" "\\1" name "${row}")
  list(APPEND listed "${name}")
endforeach()

set(missing "${declared}")
list(REMOVE_ITEM missing ${listed})
set(stale "${listed}")
list(REMOVE_ITEM stale ${declared})
if(missing OR stale)
  list(JOIN missing ", " missing_text)
  list(JOIN stale ", " stale_text)
  message(FATAL_ERROR "Note [Every public function has a gradient or a reason]: ${TABLE} must have one row per "
                      "public function. Without a row: ${missing_text}. Rows naming no public function: "
                      "${stale_text}. Give each public function its row (kFormula, kView, kInplace, kOut, kNone, "
                      "kPending, kRefused or kNoTensor).")
endif()
list(LENGTH declared count)
file(WRITE "${STAMP}" "${count} public functions, each with its row\n")
