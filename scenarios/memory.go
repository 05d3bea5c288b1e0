package scenarios

// Memory and skills of the reference's lesson s09 (its MemoryStore and
// SkillCatalog): source-attributed records retrieved on demand, and skills
// whose full instructions are loaded only when the model asks for one.
// The built-ins memory_search and load_skill record memory.read and
// skill.load events of their own.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// DefaultMemoryLimit is the reference's MemoryStore.search limit.
const DefaultMemoryLimit = 3

// The actors of the events the built-ins record, as the reference names
// them.
const (
	actorMemory = "workspace-memory"
	actorSkills = "skill-catalog"
)

// MemoryRecord is one remembered fact with its scope and source.
type MemoryRecord struct {
	ID      string
	Content string
	Scope   string
	Source  string
}

// Skill is a skill of the scenario's catalog.
type Skill struct {
	ID           string
	Description  string
	Instructions string
	ToolNames    []string
}

// searchMemory is MemoryStore.search: each record scores the number of
// distinct query terms (lower-cased, split on white space) found in
// "<id> <content> <scope>" lower-cased; records scoring 0 are left out,
// the rest ranked by score, then id, and cut to limit.
func searchMemory(records []MemoryRecord, query string, limit int) []MemoryRecord {
	terms := map[string]bool{}
	for _, t := range pyFields(strings.ToLower(query)) {
		terms[t] = true
	}
	type ranked struct {
		score int
		rec   MemoryRecord
	}
	var hits []ranked
	for _, r := range records {
		hay := strings.ToLower(r.ID + " " + r.Content + " " + r.Scope)
		score := 0
		for t := range terms {
			if strings.Contains(hay, t) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, ranked{score, r})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].rec.ID < hits[j].rec.ID
	})
	out := make([]MemoryRecord, 0, min(len(hits), max(0, limit)))
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].rec)
	}
	return out
}

// memorySearchTool searches the scenario's memory for args.query, records
// memory.read {query, match_ids, sources} and returns {matches: [{id,
// content, source}]}.
func memorySearchTool(c *call) (jsonv.Value, error) {
	query, err := stringArg(c.args, "query")
	if err != nil {
		return jsonv.Value{}, err
	}
	matches := searchMemory(c.env.sc.Memory, query, int(integer(c.opts, "limit", DefaultMemoryLimit)))
	ids := make([]string, len(matches))
	sources := make([]string, len(matches))
	found := make([]jsonv.Value, len(matches))
	for i, m := range matches {
		ids[i], sources[i] = m.ID, m.Source
		found[i] = jsonv.Obj(jsonv.M("id", jsonv.Str(m.ID)), jsonv.M("content", jsonv.Str(m.Content)), jsonv.M("source", jsonv.Str(m.Source)))
	}
	if err := c.env.emit("memory.read", journal.Actor{Kind: "harness", ID: actorMemory}, jsonv.Obj(
		jsonv.M("query", jsonv.Str(query)),
		jsonv.M("match_ids", jsonv.StrArr(ids)),
		jsonv.M("sources", jsonv.StrArr(sources)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.Obj(jsonv.M("matches", jsonv.Arr(found...))), nil
}

// loadSkillTool loads the skill args.skill_id, records skill.load
// {skill_id, tool_names} and returns {id, instructions, tool_names}. An
// unknown skill fails as the reference's KeyError does, before any event.
func loadSkillTool(c *call) (jsonv.Value, error) {
	id, err := stringArg(c.args, "skill_id")
	if err != nil {
		return jsonv.Value{}, err
	}
	var skill *Skill
	for i := range c.env.sc.Skills {
		if c.env.sc.Skills[i].ID == id {
			skill = &c.env.sc.Skills[i]
		}
	}
	if skill == nil {
		return jsonv.Value{}, keyError(fmt.Sprintf("unknown skill: %s", id))
	}
	if err := c.env.emit("skill.load", journal.Actor{Kind: "harness", ID: actorSkills}, jsonv.Obj(
		jsonv.M("skill_id", jsonv.Str(skill.ID)),
		jsonv.M("tool_names", jsonv.StrArr(skill.ToolNames)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(skill.ID)),
		jsonv.M("instructions", jsonv.Str(skill.Instructions)),
		jsonv.M("tool_names", jsonv.StrArr(skill.ToolNames)),
	), nil
}
