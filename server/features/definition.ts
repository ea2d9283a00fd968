// Go to definition: a name to its declaration (in any analysed file), a property to the statement
// it overrides (the same property in the nearest base that sets it), an import to its file.
// Built-ins have no source, so they have no location.
import type { Location, Position } from 'vscode-languageserver';
import type { DeclSymbol, Model } from '../../dsl/index.js';
import type * as A from '../../dsl/index.js';
import { locationOf, pathToUri, toOffset, type DocumentContext } from '../context.js';
import { occurrenceAt, type Meaning } from '../../dsl/navigation/occurrences.js';
import { inheritedStatement } from '../../dsl/navigation/body-schema.js';

export function definition(doc: DocumentContext, position: Position): Location[] {
  const { model } = doc.analysis;
  const found = occurrenceAt(model, doc.unit, toOffset(doc.lines, position));
  return found ? definitionsOf(model, found.meaning) : [];
}

export function declarationLocation(symbol: DeclSymbol): Location {
  return locationOf(symbol.unit, symbol.decl.name?.range ?? symbol.decl.keywordRange);
}

function definitionsOf(model: Model, meaning: Meaning): Location[] {
  switch (meaning.kind) {
    case 'declaration': return [declarationLocation(meaning.symbol)];
    case 'reference': return meaning.target?.kind === 'decl' ? [declarationLocation(meaning.target.symbol)] : [];
    case 'property': {
      const { schema, param, key } = meaning;
      const statement = schema && inheritedStatement(model, schema.inherits, param?.name ?? key, schema.block);
      return statement ? [locationOf(statement.owner.unit, pathRange(statement.node))] : [];
    }
    case 'block': return overriddenMember(model, meaning.owner, (m) => m.kind === 'Block' && m.name.text === meaning.spec?.name);
    case 'member': {
      const name = meaning.node.name?.text;
      return overriddenMember(model, meaning.owner, (m) => m.kind === 'Named' && m.memberKind === meaning.node.memberKind && m.name?.text === name);
    }
    case 'import': return meaning.path && model.unitByPath(meaning.path) ? [{ uri: pathToUri(meaning.path), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }] : [];
    default: return [];
  }
}

/** The nearest base of `owner` whose own body has a matching member. */
function overriddenMember(model: Model, owner: DeclSymbol, matches: (member: A.Member) => boolean): Location[] {
  for (const base of model.effective(owner).chain.slice(1)) {
    const member = base.decl.body?.members.find(matches);
    if (member) return [locationOf(base.unit, member.kind === 'Property' ? pathRange(member) : member.kind === 'Block' ? member.name.range : member.name?.range ?? member.keywordRange)];
  }
  return [];
}

function pathRange(property: A.Property): A.Range {
  return { start: property.path[0].range.start, end: property.path[property.path.length - 1].range.end };
}
