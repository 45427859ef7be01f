package scenarios

// The reference of the scenario format, generated from the same schema
// the loader decodes by, so that it lists exactly the keys the loader
// accepts with the types, defaults and ranges it enforces.

import (
	"math"
	"reflect"
	"strings"
)

// KeyDoc documents one key of the scenario format.
type KeyDoc struct {
	Path    string // "workload.events", "faults[].at"
	Kinds   string // the kinds of run the key belongs to ("count stream, timed stream"); "" for any
	Type    string // integer, number, duration, bool, name, text, mapping, list…
	Default string // "required", the default as written, or "" for none
	Allowed string // the range or the values allowed
	Doc     string // one line of meaning
}

// Reference lists every key a scenario file may hold, in file order: the
// top level, each kind of run's keys, the sections, and the keys of a step.
func Reference() []KeyDoc {
	var out []KeyDoc
	refSchema(&out, schemaOf(fileType), "", "")
	return out
}

func refSchema(out *[]KeyDoc, sc *mapping, prefix, kinds string) {
	for _, f := range sc.fields {
		if f.form == formRun {
			refRuns(out, prefix)
			continue
		}
		path := prefix + f.Key
		if f.Key == "steps" {
			*out = append(*out, refKey(f, path, kinds))
			st := schemaOf(reflect.TypeFor[stepSpec]())
			for _, sf := range st.fields[:4] { // name, title, description, assumptions; then the sections, as at the top
				*out = append(*out, refKey(sf, path+"[]."+sf.Key, ""))
			}
			*out = append(*out, KeyDoc{Path: path + "[]." + strings.Join(schemaOf(bodyType).keys(), "|"), Type: "sections",
				Doc: "the sections of the step's run, as at the top level"})
			continue
		}
		*out = append(*out, refKey(f, path, kinds))
		switch f.form {
		case formStruct, formOptional:
			refSchema(out, f.elem, path+".", kinds)
		case formList:
			refSchema(out, f.elem, path+"[].", kinds)
		}
	}
}

// refRuns documents the keys that give a run, and each kind's keys.
func refRuns(out *[]KeyDoc, prefix string) {
	for _, key := range runKeys() {
		ks := kindsOf(key)
		*out = append(*out, KeyDoc{Path: prefix + key, Type: "mapping", Doc: ks[0].doc})
		sc := &mapping{}
		owners := map[string][]string{}
		for _, k := range ks {
			for _, f := range k.schema().fields {
				if owners[f.Key] == nil {
					sc.fields = append(sc.fields, f)
				}
				owners[f.Key] = append(owners[f.Key], k.what)
			}
		}
		for _, f := range sc.fields {
			kinds := strings.Join(owners[f.Key], ", ")
			if len(ks) == 1 || len(owners[f.Key]) == len(ks) {
				kinds = ""
			}
			single := &mapping{fields: []*field{f}}
			refSchema(out, single, prefix+key+".", kinds)
		}
	}
}

func refKey(f *field, path, kinds string) KeyDoc {
	d := KeyDoc{Path: path, Kinds: kinds, Allowed: f.Allowed, Doc: f.Doc, Default: f.DefaultDoc}
	if f.Required {
		d.Default = "required"
	}
	d.Type = f.Kind()
	switch f.form {
	case formStruct, formOptional:
		d.Type = "mapping"
	case formList:
		d.Type = "list"
		if !math.IsInf(f.Hi, 1) {
			d.Allowed = f.listRule(true)[len("a list of "):]
		} else {
			d.Allowed = "mappings with keys " + joinKeys(f.elem.keys())
		}
		if f.Lo >= 1 {
			d.Allowed = "at least one: " + d.Allowed
		}
	case formParams:
		d.Type = "mapping"
	case formExpect, formInts:
		d.Type = "list"
	case formSweep:
		d.Type = "mapping"
	}
	return d
}
