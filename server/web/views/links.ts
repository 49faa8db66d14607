// Relative _links and entity references in the shape the real controller sends.
export interface Link {
  readonly href: string;
  readonly method?: string;
}

export const link = (href: string, method?: string): Link => (method ? { href, method } : { href });

export function entityRef(entity: string, id: string, name: string) {
  return { id, name, entity, _links: { self: link(`./${entity}/${id}`) } };
}
