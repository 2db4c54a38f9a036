# The 73 cases of docs/compatibility.md "RIC-2: the Lua parser": writes corpus/<case>.lua
# (compare.py says how they were judged).
import os
C = {}
C["goto_label"] = "for i=1,3 do\n  if i==2 then goto continue end\n  ::continue::\nend"
C["floor_div"] = "local x = 7 // 2"
C["bitand"] = "x = 1 & 2"
C["bitor"] = "x = 1 | 2"
C["shl"] = "x = 1 << 2"
C["bnot"] = "x = ~1"
C["const"] = "local x <const> = 1"
C["close"] = "local x <close> = nil"
C["while_true"] = "while true do end"
C["break_outside"] = "break"
C["goto_nolabel"] = "goto nowhere"
C["vararg_outside"] = "function f() return ... end"
C["vararg_main"] = "local a = ..."
C["locals_200"] = "local " + ",".join("v%d" % i for i in range(200)) + " = 1"
C["locals_201"] = "local " + ",".join("v%d" % i for i in range(201)) + " = 1"
C["locals_250"] = "\n".join("local v%d = %d" % (i, i) for i in range(250))
C["unterminated_str"] = 'x = "abc'
C["unterminated_long"] = 'x = [[abc'
C["invalid_token"] = "x = 1 @ 2"
C["syntax_error"] = "function GetReplicas(obj)\n  return obj.spec.replicas,\nend"
C["empty_fn_eof"] = "function f("
C["realistic_replica"] = """function GetReplicas(obj)
  replica = obj.spec.replicas
  requirement = kube.accuratePodRequirements(obj.spec.template)
  return replica, requirement
end"""
C["realistic_retain"] = """function Retain(desiredObj, observedObj)
  if observedObj.spec.paused ~= nil then
    desiredObj.spec.paused = observedObj.spec.paused
  end
  return desiredObj
end"""
C["realistic_status"] = """function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then return desiredObj end
  if desiredObj.status == nil then desiredObj.status = {} end
  local replicas = 0
  for i = 1, #statusItems do
    if statusItems[i].status ~= nil and statusItems[i].status.replicas ~= nil then
      replicas = replicas + statusItems[i].status.replicas
    end
  end
  desiredObj.status.replicas = replicas
  return desiredObj
end"""
C["realistic_health"] = """function InterpretHealth(observedObj)
  return observedObj.status.readyReplicas == observedObj.spec.replicas
end"""
C["realistic_dependency"] = """function GetDependencies(desiredObj)
  dependentSas = {}
  refs = {}
  if desiredObj.spec.template.spec.serviceAccountName ~= '' and desiredObj.spec.template.spec.serviceAccountName ~= 'default' then
    dependentSas[desiredObj.spec.template.spec.serviceAccountName] = true
  end
  local idx = 1
  for key, value in pairs(dependentSas) do
    dependObj = {}
    dependObj.apiVersion = 'v1'
    dependObj.kind = 'ServiceAccount'
    dependObj.name = key
    dependObj.namespace = desiredObj.metadata.namespace
    refs[idx] = dependObj
    idx = idx + 1
  end
  return refs
end"""
C["esc_hex"] = 'x = "\\x41"'
C["esc_z"] = 'x = "a\\z\n   b"'
C["esc_u"] = 'x = "\\u{48}"'
C["esc_bad"] = 'x = "\\q"'
C["esc_dec_big"] = 'x = "\\300"'
C["hexfloat"] = "x = 0x1p4"
C["hexfrac"] = "x = 0x1.8"
C["ll"] = "x = 1LL"
C["ull"] = "x = 1ULL"
C["imag"] = "x = 1i"
C["num_malformed"] = "x = 3..2"
C["num_trail"] = "x = 12abc"
C["semicolon_empty"] = ";;"
C["double_colon_only"] = "::a:: ::a::"
C["dup_label"] = "::a:: x=1 ::a::"
C["goto_into_local"] = "goto f\nlocal x\n::f::\nprint(x)"
C["goto_continue_repeat"] = "repeat\n local x = 1\n goto c\n ::c::\nuntil x"
C["label_end_block"] = "do goto e\nlocal x = 1\n::e:: end"
C["goto_as_name"] = "local goto = 1"
C["ambiguous_call"] = "local f = print\n(f)(1)"
C["comment_long"] = "--[==[ long\ncomment ]==]\nx = 1"
C["nested_long_str"] = "x = [[ a [[ b ]] ]]"
C["shebang"] = "#!/usr/bin/lua\nx = 1"
C["int_div_comment"] = "x = 1 --[[ // ]] + 2"
C["method_call_str"] = "x = ('a'):rep(3)"
C["string_newline"] = 'x = "a\nb"'
C["nul_byte"] = 'x = 1\0'
C["bin_chunk"] = "\x1bLua"
C["assign_call"] = "f() = 1"
C["empty"] = ""
C["only_comment"] = "-- nothing"
C["return_mid"] = "return 1\nx = 2"
C["return_semi"] = "do return end x = 1"
C["not_eq_bang"] = "x = 1 != 2"
C["ne"] = "x = 1 ~= 2"
C["too_many_upvals"] = "local " + ",".join("u%d" % i for i in range(100)) + "\n" + \
    "local " + ",".join("w%d" % i for i in range(100)) + "\nfunction f() return " + "+".join(["u%d" % i for i in range(100)] + ["w%d" % i for i in range(100)]) + " end"
C["deep_parens_150"] = "x = " + "(" * 150 + "1" + ")" * 150
C["deep_parens_250"] = "x = " + "(" * 250 + "1" + ")" * 250
C["deep_parens_5000"] = "x = " + "(" * 5000 + "1" + ")" * 5000
C["deep_tables_1000"] = "x = " + "{" * 1000 + "}" * 1000
C["deep_if_300"] = "if x then " * 300 + "end " * 300
C["deep_fn_300"] = "function f() " * 300 + "end " * 300
C["deep_concat_10000"] = "x = " + " .. ".join(["'a'"] * 10000)
C["long_chain_unary"] = "x = " + "-" * 1000 + "1"
C["many_consts"] = "t = {" + ",".join("%d.5" % i for i in range(300000)) + "}"
# a 3 MiB script of realistic functions
fn = C["realistic_status"].replace("AggregateStatus", "F%d")
big, i = [], 0
while sum(map(len, big)) < 3 * 1024 * 1024:
    big.append(fn % i + "\n"); i += 1
C["big_3mib"] = "".join(big)
C["big_3mib_err_end"] = C["big_3mib"] + "x = 1 & 2\n"
os.makedirs("corpus", exist_ok=True)
for k, v in C.items():
    open("corpus/" + k + ".lua", "wb").write(v.encode("latin-1") if "\\300" not in v else v.encode())
