/** `1, 2 and 5`. */
function list(items: string[], and: string): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]}`;
}

/** The finder's words. English and French (stores are in the US and Canada); `data-lang` picks one. */
export const MESSAGES = {
  en: {
    region: 'Store finder',
    searchLabel: 'Address, city or postal code',
    searchPlaceholder: 'e.g. 97205 or Seattle',
    search: 'Search',
    useLocation: 'Use my location',
    radius: 'Distance',
    storeType: 'Store type',
    allTypes: 'All store types',
    product: 'Product',
    allProducts: 'All products',
    openNow: 'Open now',
    results: 'Stores',
    map: 'Map of stores',
    intro: 'Enter an address or postal code, or use your location, to find the stores nearest you.',
    overview: (n: number) => (n === 1 ? '1 store. Search to see the nearest ones.' : `${n} stores. Search to see the nearest ones.`),
    searching: 'Searching…',
    found: (n: number, total: number, place: string) =>
      `${total === 1 ? '1 store' : `${total} stores`} found near ${place}${n < total ? `, showing the nearest ${n}` : ''}.`,
    none: (place: string) => `No stores found near ${place}. Try a larger distance or fewer filters.`,
    unknownPlace: 'We could not find that place. Try a city or a postal code.',
    failed: 'The store list could not be loaded. Please try again.',
    unavailable: 'This store finder is not available.',
    cluster: (numbers: string[]) => `Stores ${list(numbers, 'and')}: zoom in`,
    locating: 'Finding your location…',
    noLocation: 'Your location is not available. Enter an address instead.',
    yourLocation: 'your location',
    open: 'Open now',
    closed: 'Closed',
    todayHours: (from: string, to: string) => `Today: ${from} – ${to}`,
    closedToday: 'Closed today',
    directions: 'Directions',
    directionsTo: (name: string) => `Directions to ${name} (opens in a new tab)`,
    call: (name: string) => `Call ${name}`,
    showOnMap: (name: string) => `${name}: show on map`,
    selected: (name: string) => `${name} selected on the map.`,
    youAreHere: 'Search point',
    away: (d: string) => `${d} away`,
  },
  fr: {
    region: 'Trouver un magasin',
    searchLabel: 'Adresse, ville ou code postal',
    searchPlaceholder: 'ex. V6E 3P3 ou Montréal',
    search: 'Rechercher',
    useLocation: 'Utiliser ma position',
    radius: 'Distance',
    storeType: 'Type de magasin',
    allTypes: 'Tous les types',
    product: 'Produit',
    allProducts: 'Tous les produits',
    openNow: 'Ouvert maintenant',
    results: 'Magasins',
    map: 'Carte des magasins',
    intro: 'Saisissez une adresse ou un code postal, ou utilisez votre position, pour trouver les magasins les plus proches.',
    overview: (n: number) => (n === 1 ? '1 magasin. Lancez une recherche pour voir les plus proches.' : `${n} magasins. Lancez une recherche pour voir les plus proches.`),
    searching: 'Recherche…',
    found: (n: number, total: number, place: string) =>
      `${total === 1 ? '1 magasin trouvé' : `${total} magasins trouvés`} près de ${place}${n < total ? `, les ${n} plus proches affichés` : ''}.`,
    none: (place: string) => `Aucun magasin trouvé près de ${place}. Essayez une plus grande distance ou moins de filtres.`,
    unknownPlace: 'Lieu introuvable. Essayez une ville ou un code postal.',
    failed: 'La liste des magasins n’a pas pu être chargée. Veuillez réessayer.',
    unavailable: 'Ce localisateur de magasins n’est pas disponible.',
    cluster: (numbers: string[]) => `Magasins ${list(numbers, 'et')} : zoomer`,
    locating: 'Recherche de votre position…',
    noLocation: 'Votre position n’est pas disponible. Saisissez plutôt une adresse.',
    yourLocation: 'votre position',
    open: 'Ouvert',
    closed: 'Fermé',
    todayHours: (from: string, to: string) => `Aujourd’hui : ${from} – ${to}`,
    closedToday: 'Fermé aujourd’hui',
    directions: 'Itinéraire',
    directionsTo: (name: string) => `Itinéraire vers ${name} (nouvel onglet)`,
    call: (name: string) => `Appeler ${name}`,
    showOnMap: (name: string) => `${name} : afficher sur la carte`,
    selected: (name: string) => `${name} sélectionné sur la carte.`,
    youAreHere: 'Point de recherche',
    away: (d: string) => `à ${d}`,
  },
};

export type Lang = keyof typeof MESSAGES;
export type Messages = (typeof MESSAGES)['en'];

/** `fr`, `fr-CA`... -> `fr`; anything else -> `en`. */
export function pickLang(requested: string | null | undefined): Lang {
  const base = (requested ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return base in MESSAGES ? (base as Lang) : 'en';
}
