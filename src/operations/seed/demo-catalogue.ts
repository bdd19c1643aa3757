import type { Grant } from '../../access/permissions/permission';

/**
 * What each demo company sells and has been ordered, so that every example of the README, docs/client.md and the
 * client package has something to read on a first start: products with prices in minor units, and orders of them (by the
 * index of the product in its company's list).
 */
export interface DemoCompany {
  name: string;
  products: Array<{ name: string; sku: string; price: number }>;
  orders: Array<Array<{ product: number; quantity: number }>>;
}

export const DEMO_COMPANIES: readonly DemoCompany[] = [
  {
    name: 'Demo Company A',
    products: [
      { name: 'Espresso beans, 1 kg', sku: 'ESP-1KG', price: 2490 },
      { name: 'Oat milk, 1 l', sku: 'OAT-1L', price: 289 },
      { name: 'Paper cups, pack of 100', sku: 'CUP-100', price: 799 },
      { name: 'Ceramic mug', sku: 'MUG-01', price: 1250 },
      { name: 'Cold brew concentrate, 500 ml', sku: 'CB-500', price: 1190 },
    ],
    orders: [
      [
        { product: 0, quantity: 2 },
        { product: 2, quantity: 3 },
      ],
      [
        { product: 1, quantity: 12 },
        { product: 3, quantity: 4 },
      ],
    ],
  },
  {
    name: 'Demo Company B',
    products: [
      { name: 'Notebook, A5', sku: 'NB-A5', price: 450 },
      { name: 'Ballpoint pens, pack of 10', sku: 'PEN-10', price: 380 },
      { name: 'Desk lamp', sku: 'LAMP-01', price: 3490 },
      { name: 'USB-C cable, 1 m', sku: 'USBC-1M', price: 990 },
    ],
    orders: [
      [
        { product: 0, quantity: 10 },
        { product: 1, quantity: 5 },
      ],
      [{ product: 2, quantity: 1 }],
    ],
  },
];

/** The demo API key: the owner's, in the first company, read-only (a key holds a subset of its owner's rights). */
export const DEMO_API_KEY: { name: string; permissions: Grant[] } = {
  name: 'demo key (read-only)',
  permissions: ['products:read', 'orders:read'],
};
