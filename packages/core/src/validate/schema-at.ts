/**
 * The policy schema fragment that governs a JSON Pointer. Our schema has one subschema per
 * instance location (no oneOf, no conditional branches), so the instance path alone finds it.
 */
import { policySchema } from '../generated/data';
import type { PresetCatalog } from '../presets/catalog';
import { parsePointer } from './pointer';

/**
 * A part of the policy JSON Schema, as plain JSON.
 * @internal
 */
export type SchemaFragment = Record<string, any>;

/** The subschema at `pointer` (references followed) and the name of the last `$defs` entry reached. */
export function schemaLookup(pointer: string): { def?: string; schema?: SchemaFragment } {
  return schemaLookupPath(parsePointer(pointer));
}

export function schemaLookupPath(path: ReadonlyArray<string | number>): { def?: string; schema?: SchemaFragment } {
  let node: SchemaFragment | undefined = policySchema;
  let def: string | undefined;
  const deref = () => {
    while (node && typeof node.$ref === 'string') {
      const name: string = node.$ref.replace('#/$defs/', '');
      const own: SchemaFragment = node;
      def = name;
      const target = policySchema.$defs?.[name];
      // A member's own description (beside its $ref) wins over the referenced definition's.
      node = target && typeof own.description === 'string' ? { ...target, description: own.description } : target;
    }
  };
  deref();
  for (const segment of path) {
    if (!node) break;
    if (node.type === 'array') node = typeof segment === 'number' || /^(0|[1-9][0-9]*|-)$/.test(segment) ? node.items : undefined;
    else if (node.type === 'object' && Object.prototype.hasOwnProperty.call(node.properties ?? {}, segment)) node = node.properties[segment];
    else node = undefined;
    deref();
  }
  return { def, schema: node };
}

/**
 * The JSON Schema fragment that governs the value at `pointer` (`$ref`s followed), or undefined
 * where the schema allows nothing. With a catalog, a preset name's fragment lists the names that
 * catalog defines as its `enum` (the schema itself leaves names to the catalog in force).
 * @internal
 */
export function schemaAt(pointer: string, catalog?: PresetCatalog): SchemaFragment | undefined {
  const { def, schema } = schemaLookup(pointer);
  if (schema && def === 'presetName' && catalog) return { ...schema, enum: catalog.presets.map((p) => p.name) };
  return schema;
}
